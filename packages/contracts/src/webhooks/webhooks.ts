/**
 * The `webhooks` family (spec §2.6, §4.3): the subscription and delivery shapes, the create and update bodies,
 * the path and query parameters, the webhook pagination variant, and the proto → JSON mappers.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  DeliveryStatus,
  Outcome,
  Source,
  WebhookEvent,
  type Delivery,
  type Subscription,
} from '@assay/proto/assay/webhooks/v1/webhooks_pb';
import { enumMap } from '../common/enums';
import { DateTime, iso, isoRequired, Nullable, withExamples } from '../common/json';
import { PageQuery } from '../common/pagination';
import { TEST_RUN_EXAMPLE, TestRunSchema } from '../runs/test-runs';
import {
  DELIVERY_STATUSES,
  MAX_DESCRIPTION_LENGTH,
  MAX_URL_LENGTH,
  OUTCOMES,
  SOURCES,
  WEBHOOK_EVENT_ALIASES,
  WEBHOOK_EVENT_NAMES,
  WEBHOOK_EVENTS,
  WEBHOOK_HEADERS,
  type DeliveryStatusName,
  type OutcomeName,
  type SourceName,
  type WebhookEventName,
} from './values';

export const webhookEvent = enumMap<WebhookEventName, WebhookEvent>([
  ['RUN_STARTED', WebhookEvent.RUN_STARTED],
  ['RUN_FINISHED', WebhookEvent.RUN_FINISHED],
]);
export const outcome = enumMap<OutcomeName, Outcome>([
  ['any', Outcome.ANY],
  ['failed', Outcome.FAILED],
  ['passed', Outcome.PASSED],
]);
export const source = enumMap<SourceName, Source>([
  ['api', Source.API],
  ['zapier', Source.ZAPIER],
  ['n8n', Source.N8N],
]);
export const deliveryStatus = enumMap<DeliveryStatusName, DeliveryStatus>([
  ['pending', DeliveryStatus.PENDING],
  ['success', DeliveryStatus.SUCCESS],
  ['failed', DeliveryStatus.FAILED],
]);

const literals = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  );

const Event = literals(WEBHOOK_EVENTS);
/** Either spelling on input; reads return the upper-case form. */
const EventInput = literals(
  [...WEBHOOK_EVENTS, ...(Object.keys(WEBHOOK_EVENT_ALIASES) as (keyof typeof WEBHOOK_EVENT_ALIASES)[])],
  '`run.started` / `run.finished` are deprecated spellings of the upper-case names',
);
const OutcomeSchema = literals(
  OUTCOMES,
  'RUN_FINISHED filter: failed = 1 or more failed or timed-out tests; passed = none; any = every run',
);
const SourceSchema = literals(SOURCES, 'who manages the subscription: the API (default) or an automation tool (Zapier, n8n)');
const DeliveryStatusSchema = literals(DELIVERY_STATUSES);

export const WebhookSchema = withExamples(
  Type.Object(
    {
      _id: Type.String(),
      projectId: Type.String(),
      url: Type.String({ maxLength: MAX_URL_LENGTH }),
      events: Type.Array(Event),
      conditions: Type.Object({ outcome: OutcomeSchema }),
      active: Type.Boolean(),
      description: Type.String({ maxLength: MAX_DESCRIPTION_LENGTH }),
      source: SourceSchema,
      consecutiveFailures: Type.Integer({ minimum: 0, description: 'consecutive failed delivery attempts' }),
      disabledReason: Nullable(Type.String()),
      lastDeliveryAt: Type.Union([DateTime, Type.Null()], { description: 'time of the latest delivery attempt' }),
      createdAt: DateTime,
      updatedAt: DateTime,
    },
    { title: 'WebhookSubscription' },
  ),
  {
    _id: '66a1f0c2e4b0a1b2c3d4e700',
    projectId: '66a1f0c2e4b0a1b2c3d4e500',
    url: 'https://ci.example.com/hooks/assay',
    events: ['RUN_STARTED', 'RUN_FINISHED'],
    conditions: { outcome: 'failed' },
    active: true,
    description: 'Post failed runs to the team channel',
    source: 'api',
    consecutiveFailures: 0,
    disabledReason: null,
    lastDeliveryAt: '2026-03-02T09:21:43.000Z',
    createdAt: '2026-02-20T14:03:11.000Z',
    updatedAt: '2026-02-20T14:03:11.000Z',
  },
);
export type WebhookJson = Static<typeof WebhookSchema>;
const WEBHOOK_EXAMPLE = WebhookSchema.examples[0];

export const CreatedWebhookSchema = Type.Intersect(
  [WebhookSchema, Type.Object({ secret: Type.String({ description: 'the signing secret, shown in this response only (`whsec_…`)' }) })],
  {
    title: 'CreatedWebhookSubscription',
    examples: [{ ...WEBHOOK_EXAMPLE, lastDeliveryAt: null, secret: 'whsec_3q2+7w9Xk1LmN0pQrStUvWxYz4AbCdEf' }],
  },
);

export const DeliverySchema = Type.Object(
  {
    _id: Type.String({ description: 'also sent as X-Service-Delivery; stable across retries' }),
    webhookId: Type.String(),
    event: Event,
    runId: Type.String(),
    status: DeliveryStatusSchema,
    attempt: Type.Integer({ minimum: 0, description: 'attempts made so far' }),
    nextAttemptAt: Type.Union([DateTime, Type.Null()]),
    statusCode: Nullable(Type.Integer()),
    responseMs: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    title: 'WebhookDelivery',
    examples: [
      {
        _id: '66a1f0c2e4b0a1b2c3d4e7a1',
        webhookId: '66a1f0c2e4b0a1b2c3d4e700',
        event: 'RUN_FINISHED',
        runId: '66a1f0c2e4b0a1b2c3d4e5f6',
        status: 'failed',
        attempt: 2,
        nextAttemptAt: '2026-03-02T09:57:43.000Z',
        statusCode: 502,
        responseMs: 311,
        error: 'HTTP 502',
        createdAt: '2026-03-02T09:21:43.000Z',
        updatedAt: '2026-03-02T09:27:43.000Z',
      },
    ],
  },
);
export type DeliveryJson = Static<typeof DeliverySchema>;

/** The webhook lists' pagination variant (spec §2.1). */
export const WebhookPagination = Type.Object(
  { page: Type.Integer({ minimum: 1 }), limit: Type.Integer(), total: Type.Integer({ minimum: 0 }), hasMore: Type.Boolean() },
  { title: 'WebhookPagination' },
);

export const OkWebhookPage = <T extends TSchema>(item: T) =>
  Type.Object({ success: Type.Literal(true), data: Type.Array(item), pagination: WebhookPagination });

export const WebhookParams = Type.Object({ projectId: Type.String(), webhookId: Type.String() });

export const DeliveriesQuery = Type.Object({ ...PageQuery(), status: Type.Optional(DeliveryStatusSchema) });

const Conditions = Type.Object({ outcome: Type.Optional(OutcomeSchema) }, { additionalProperties: false });

export const CreateWebhookBody = withExamples(
  Type.Object(
    {
      url: Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, format: 'uri', description: 'http or https' }),
      events: Type.Array(EventInput, { minItems: 1 }),
      conditions: Type.Optional(Conditions),
      description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH })),
      source: Type.Optional(SourceSchema),
    },
    { additionalProperties: false },
  ),
  {
    url: 'https://ci.example.com/hooks/assay',
    events: ['RUN_STARTED', 'RUN_FINISHED'],
    conditions: { outcome: 'failed' },
    description: 'Post failed runs to the team channel',
  },
);
export type CreateWebhookBodyValue = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = withExamples(
  Type.Object(
    {
      url: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH, format: 'uri' })),
      events: Type.Optional(Type.Array(EventInput, { minItems: 1 })),
      conditions: Type.Optional(Conditions),
      active: Type.Optional(Type.Boolean({ description: 'true re-enables a disabled subscription and clears consecutiveFailures' })),
      description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH })),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
  { active: true },
);
export type UpdateWebhookBodyValue = Static<typeof UpdateWebhookBody>;

const PAYLOAD_EXAMPLE_PROJECT = '66a1f0c2e4b0a1b2c3d4e500';

/**
 * The body of a delivery (CONTRACT §7), one schema for the webhooks service that builds it and for the
 * `webhooks` section of the API document: `{id, event, eventName, createdAt, projectId, data: {run}}`.
 */
export const WebhookPayloadSchema = Type.Object(
  {
    id: Type.String({ description: 'the event id: the same for every subscription and every attempt of this event' }),
    event: Event,
    eventName: literals(
      WEBHOOK_EVENTS.map((e) => WEBHOOK_EVENT_NAMES[e]),
      'the new spelling of `event`, sent alongside it',
    ),
    createdAt: Type.String({ format: 'date-time', description: 'when the run event happened' }),
    projectId: Type.String(),
    data: Type.Object({
      run: Type.Union([Type.Ref(TestRunSchema), Type.Null()], {
        description: 'the run as the runs list shows it, at the time of the event',
      }),
    }),
  },
  {
    $id: 'WebhookPayload',
    title: 'WebhookPayload',
    examples: [
      {
        id: '66a1f0c2e4b0a1b2c3d4e601',
        event: 'RUN_STARTED',
        eventName: 'run.started',
        createdAt: '2026-03-02T09:15:00.000Z',
        projectId: PAYLOAD_EXAMPLE_PROJECT,
        data: {
          run: {
            ...TEST_RUN_EXAMPLE,
            status: 'running',
            endTime: null,
            duration: 0,
            testStats: { total: 0, passed: 0, failed: 0, skipped: 0, flaky: 0, timedOut: 0, totalAttempts: 0, retriedTests: 0 },
          },
        },
      },
      {
        id: '66a1f0c2e4b0a1b2c3d4e602',
        event: 'RUN_FINISHED',
        eventName: 'run.finished',
        createdAt: '2026-03-02T09:21:42.000Z',
        projectId: PAYLOAD_EXAMPLE_PROJECT,
        data: { run: TEST_RUN_EXAMPLE },
      },
    ],
  },
);
export type WebhookPayload = Static<typeof WebhookPayloadSchema>;

/** The request headers of a delivery, as a schema (the `webhooks` section of the API document). */
export const WebhookDeliveryHeaders = Type.Object({
  [WEBHOOK_HEADERS.signature]: Type.String({
    pattern: '^t=[0-9]+,v1=[0-9a-f]{64}$',
    description:
      '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the signing secret>`: compare in constant time over the raw bytes and refuse a `t` more than 300 seconds from your clock (@assay/webhook-verify does both)',
    examples: ['t=1772442942,v1=5d41402abc4b2a76b9719d911017c592ae0f4b1d7e8f3a6c2b9e0d1f4a7c3b2e'],
  }),
  [WEBHOOK_HEADERS.event]: Type.Union(
    WEBHOOK_EVENTS.map((e) => Type.Literal(e)),
    { description: 'the `event` of the body', examples: ['RUN_FINISHED'] },
  ),
  [WEBHOOK_HEADERS.delivery]: Type.String({
    description: 'the delivery `_id` (see the deliveries list): stable across the retries of one delivery',
    examples: ['66a1f0c2e4b0a1b2c3d4e7a1'],
  }),
});

/** Either spelling → the proto enum. */
export const eventsToProto = (events: readonly string[]): WebhookEvent[] =>
  events.map((e) => webhookEvent.toProto((WEBHOOK_EVENT_ALIASES as Record<string, WebhookEventName>)[e] ?? (e as WebhookEventName)));

export function webhookToJson(s: Subscription): WebhookJson {
  return {
    _id: s.id,
    projectId: s.projectId,
    url: s.url,
    events: s.events.map(webhookEvent.fromProto),
    conditions: { outcome: outcome.fromProto(s.outcome) },
    active: s.active,
    description: s.description,
    source: source.fromProto(s.source),
    consecutiveFailures: s.consecutiveFailures,
    disabledReason: s.disabledReason ?? null,
    lastDeliveryAt: iso(s.lastDeliveryAt),
    createdAt: isoRequired(s.createdAt),
    updatedAt: isoRequired(s.updatedAt),
  };
}

export function deliveryToJson(d: Delivery): DeliveryJson {
  return {
    _id: d.id,
    webhookId: d.webhookId,
    event: webhookEvent.fromProto(d.event),
    runId: d.runId,
    status: deliveryStatus.fromProto(d.status),
    attempt: d.attempt,
    nextAttemptAt: iso(d.nextAttemptAt),
    statusCode: d.statusCode ?? null,
    responseMs: d.responseMs ?? null,
    error: d.error ?? null,
    createdAt: isoRequired(d.createdAt),
    updatedAt: isoRequired(d.updatedAt),
  };
}

export function webhookPagination(page: number, limit: number, total: number) {
  return { page, limit, total, hasMore: page * limit < total };
}
