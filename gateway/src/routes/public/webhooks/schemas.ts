/** Spec §2.6 webhook subscription and delivery shapes, the §4.3 bodies, and the webhook pagination variant. */
import { Type, type Static } from '@sinclair/typebox';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Delivery, Subscription } from '@assay/proto/assay/webhooks/v1/webhooks_pb';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);

/** Both spellings are accepted; reads return the upper-case form. */
const EventName = Type.Union(
  ['RUN_STARTED', 'RUN_FINISHED', 'run.started', 'run.finished'].map((e) => Type.Literal(e)),
  { description: '`run.started` / `run.finished` are deprecated spellings of the upper-case names' },
);
const Outcome = Type.Union(
  ['any', 'failed', 'passed'].map((o) => Type.Literal(o)),
  { description: 'RUN_FINISHED filter: failed = 1 or more failed or timed-out tests; passed = none; any = every run' },
);
export const WEBHOOK_SOURCES = ['api', 'zapier', 'n8n'] as const;
const Source = Type.Union(
  WEBHOOK_SOURCES.map((s) => Type.Literal(s)),
  { description: 'who manages the subscription: the API (default) or an automation tool (Zapier, n8n)' },
);

export const WebhookSchema = Type.Object(
  {
    _id: Type.String(),
    projectId: Type.String(),
    url: Type.String({ maxLength: 2048 }),
    events: Type.Array(Type.Union([Type.Literal('RUN_STARTED'), Type.Literal('RUN_FINISHED')])),
    conditions: Type.Object({ outcome: Outcome }),
    active: Type.Boolean(),
    description: Type.String({ maxLength: 200 }),
    source: Source,
    consecutiveFailures: Type.Integer({ minimum: 0, description: 'consecutive failed delivery attempts' }),
    disabledReason: Nullable(Type.String()),
    lastDeliveryAt: Type.Union([DateTime, Type.Null()], { description: 'time of the latest delivery attempt' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { title: 'WebhookSubscription' },
);
export type WebhookJson = Static<typeof WebhookSchema>;

export const CreatedWebhookSchema = Type.Intersect(
  [WebhookSchema, Type.Object({ secret: Type.String({ description: 'the signing secret, shown in this response only (`whsec_…`)' }) })],
  { title: 'CreatedWebhookSubscription' },
);

export const DeliverySchema = Type.Object(
  {
    _id: Type.String({ description: 'also sent as X-Service-Delivery; stable across retries' }),
    webhookId: Type.String(),
    event: Type.Union([Type.Literal('RUN_STARTED'), Type.Literal('RUN_FINISHED')]),
    runId: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('success'), Type.Literal('failed')]),
    attempt: Type.Integer({ minimum: 0, description: 'attempts made so far' }),
    nextAttemptAt: Type.Union([DateTime, Type.Null()]),
    statusCode: Nullable(Type.Integer()),
    responseMs: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { title: 'WebhookDelivery' },
);

/** The webhook lists' pagination variant (spec §2.1). */
export const WebhookPagination = Type.Object(
  { page: Type.Integer({ minimum: 1 }), limit: Type.Integer(), total: Type.Integer({ minimum: 0 }), hasMore: Type.Boolean() },
  { title: 'WebhookPagination' },
);

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, format: 'uri', description: 'http or https' }),
    events: Type.Array(EventName, { minItems: 1 }),
    conditions: Type.Optional(Type.Object({ outcome: Type.Optional(Outcome) }, { additionalProperties: false })),
    description: Type.Optional(Type.String({ maxLength: 200 })),
    source: Type.Optional(Source),
  },
  { additionalProperties: false },
);
export type CreateWebhookBodyValue = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, format: 'uri' })),
    events: Type.Optional(Type.Array(EventName, { minItems: 1 })),
    conditions: Type.Optional(Type.Object({ outcome: Type.Optional(Outcome) }, { additionalProperties: false })),
    active: Type.Optional(Type.Boolean({ description: 'true re-enables a disabled subscription and clears consecutiveFailures' })),
    description: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookBodyValue = Static<typeof UpdateWebhookBody>;

const iso = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);

export function webhookToJson(s: Subscription): WebhookJson {
  return {
    _id: s.id,
    projectId: s.projectId,
    url: s.url,
    events: s.events as WebhookJson['events'],
    conditions: { outcome: s.outcome as WebhookJson['conditions']['outcome'] },
    active: s.active,
    description: s.description,
    source: s.source as WebhookJson['source'],
    consecutiveFailures: s.consecutiveFailures,
    disabledReason: s.disabledReason ?? null,
    lastDeliveryAt: iso(s.lastDeliveryAt),
    createdAt: iso(s.createdAt) ?? new Date(0).toISOString(),
    updatedAt: iso(s.updatedAt) ?? new Date(0).toISOString(),
  };
}

export function deliveryToJson(d: Delivery): Static<typeof DeliverySchema> {
  return {
    _id: d.id,
    webhookId: d.webhookId,
    event: d.event as 'RUN_STARTED' | 'RUN_FINISHED',
    runId: d.runId,
    status: d.status as 'pending' | 'success' | 'failed',
    attempt: d.attempt,
    nextAttemptAt: iso(d.nextAttemptAt),
    statusCode: d.statusCode ?? null,
    responseMs: d.responseMs ?? null,
    error: d.error ?? null,
    createdAt: iso(d.createdAt) ?? new Date(0).toISOString(),
    updatedAt: iso(d.updatedAt) ?? new Date(0).toISOString(),
  };
}

export function webhookPagination(page: number, limit: number, total: number) {
  return { page, limit, total, hasMore: page * limit < total };
}
