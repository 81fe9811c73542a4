/** WebhooksService subscription and delivery-history RPCs (spec §2.6, §4.3). */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import {
  CreateSubscriptionResponseSchema,
  DeliverySchema,
  SubscriptionSchema,
  type Delivery,
  type Subscription,
  type WebhooksService,
} from '@assay/proto/assay/webhooks/v1/webhooks_pb';
import { newId, withTransaction } from '@assay/db';
import { AppError, notFound, validation } from '@assay/errors';
import { principalOf, withIdempotency, type Principal } from '@assay/service-kit';
import {
  MAX_SUBSCRIPTIONS_PER_PROJECT,
  type DeliveryStatusName,
  type OutcomeName,
  type SourceName,
  type WebhookEventName,
} from '@assay/contracts/webhooks/values';
import type { Wiring } from '../wiring';
import { generateSecret } from '../domain/secrets';
import { rangeInWords, refusedLiteral } from '../domain/ssrf';
import { checkDescription, checkUrlShape, enumValue, eventsOf } from '../domain/rules';
import { deliveryStatus, outcome as outcomes, source as sources, webhookEvent } from '@assay/contracts/webhooks/webhooks';
import { paging, pageInfo } from '@assay/service-kit';
import {
  countSubscriptions,
  deleteSubscription,
  findSubscription,
  insertSubscription,
  listSubscriptions,
  stopPendingDeliveries,
  updateSubscription,
  type SubscriptionPatch,
  type SubscriptionRow,
} from '../store/webhooks';
import { countDeliveries, listDeliveries, type DeliveryRow } from '../store/deliveries';

export const DISABLED_BY_REQUEST = 'disabled by an API request (active set to false)';

function toSubscription(r: SubscriptionRow): Subscription {
  return create(SubscriptionSchema, {
    id: r.id,
    projectId: r.projectId,
    url: r.url,
    events: r.events.map((e) => webhookEvent.toProto(e as WebhookEventName)),
    outcome: outcomes.toProto(r.outcome as OutcomeName),
    active: r.active,
    description: r.description,
    source: sources.toProto(r.source as SourceName),
    consecutiveFailures: r.consecutiveFailures,
    disabledReason: r.disabledReason ?? undefined,
    lastDeliveryAt: r.lastDeliveryAt ? timestampFromDate(r.lastDeliveryAt) : undefined,
    createdAt: timestampFromDate(r.createdAt),
    updatedAt: timestampFromDate(r.updatedAt),
  });
}

function toDelivery(r: DeliveryRow): Delivery {
  return create(DeliverySchema, {
    id: r.id,
    webhookId: r.subscriptionId,
    event: webhookEvent.toProto(r.event as WebhookEventName),
    runId: r.runId,
    status: deliveryStatus.toProto(r.status as DeliveryStatusName),
    attempt: r.attempt,
    nextAttemptAt: r.nextAttemptAt ? timestampFromDate(r.nextAttemptAt) : undefined,
    statusCode: r.statusCode ?? undefined,
    responseMs: r.responseMs ?? undefined,
    error: r.error ?? undefined,
    createdAt: timestampFromDate(r.createdAt),
    updatedAt: timestampFromDate(r.updatedAt),
  });
}

/** Webhook reads: any member of the organization, through a user token (a project api key is no member). */
function requireMember(ctx: HandlerContext): Principal {
  const p = principalOf(ctx);
  if (p.tokenType !== 'pat' || p.role === null)
    throw new AppError('FORBIDDEN', 'Webhook subscriptions are visible to organization members only');
  return p;
}

/** Webhook management: owner or admin (spec §5.6); the gateway checks it first, this is defence in depth. */
function requireWebhookAdmin(ctx: HandlerContext): Principal {
  const p = principalOf(ctx);
  if (p.tokenType !== 'pat' || (p.role !== 'owner' && p.role !== 'admin'))
    throw new AppError('FORBIDDEN', 'Managing webhooks needs the owner or admin role');
  return p;
}

type Rpcs = ServiceImpl<typeof WebhooksService>;

export function webhookHandlers(w: Wiring): Rpcs {
  const { pool, config, secrets } = w;

  /** Shape, scheme and — unless private targets are allowed — IP-literal hosts; names are checked at send time. */
  function checkUrl(url: string): string {
    const parsed = checkUrlShape(url);
    if (!config.WEBHOOK_ALLOW_PRIVATE_TARGETS) {
      const range = refusedLiteral(parsed.hostname);
      if (range || parsed.hostname === 'localhost' || parsed.hostname.endsWith('.localhost')) {
        throw validation('url must point at a public address', [
          { path: 'body.url', message: `must point at a public address (this host is ${range ? rangeInWords(range) : 'loopback'})` },
        ]);
      }
    }
    return url;
  }

  return {
    async listSubscriptions(req, hctx) {
      requireMember(hctx);
      const p = paging(req.page);
      const [total, rows] = await Promise.all([
        countSubscriptions(pool, req.projectId),
        listSubscriptions(pool, req.projectId, p.limit, p.offset),
      ]);
      return { subscriptions: rows.map(toSubscription), page: pageInfo(p, total) };
    },

    async createSubscription(req, hctx) {
      const caller = requireWebhookAdmin(hctx);
      const url = checkUrl(req.url);
      const events = eventsOf(req.events);
      const outcome = req.outcome === undefined ? 'any' : enumValue(outcomes, req.outcome, 'body.conditions.outcome');
      const source = req.source === undefined ? 'api' : enumValue(sources, req.source, 'body.source');
      const description = checkDescription(req.description ?? '');
      const id = newId();
      const secret = generateSecret();
      const answer = await withIdempotency(pool, hctx, CreateSubscriptionResponseSchema, async (c) => {
        const row = await insertSubscription(c, MAX_SUBSCRIPTIONS_PER_PROJECT, {
          id,
          projectId: req.projectId,
          url,
          events,
          outcome,
          description,
          source,
          secretCiphertext: secrets.encrypt(secret, id),
          createdBy: caller.userId,
        });
        if (!row) throw new AppError('CONFLICT', `A project has at most ${MAX_SUBSCRIPTIONS_PER_PROJECT} webhook subscriptions`);
        return { subscription: toSubscription(row), secret };
      });
      // Once committed, and by the call that created it (a replay answers the first call's subscription).
      if (answer.subscription?.id === id) w.logger.info({ subscriptionId: id, projectId: req.projectId }, 'webhook subscription created');
      return answer;
    },

    async getSubscription(req, hctx) {
      requireMember(hctx);
      const row = await findSubscription(pool, req.projectId, req.id);
      if (!row) throw notFound('Webhook');
      return { subscription: toSubscription(row) };
    },

    async updateSubscription(req, hctx) {
      requireWebhookAdmin(hctx);
      if ([req.url, req.events, req.outcome, req.description, req.active].every((v) => v === undefined)) {
        throw validation('send at least one field to change', [{ path: 'body', message: 'must have at least 1 property' }]);
      }
      const patch: SubscriptionPatch = {};
      if (req.url !== undefined) patch.url = checkUrl(req.url);
      if (req.events !== undefined) patch.events = eventsOf(req.events.events);
      if (req.outcome !== undefined) patch.outcome = enumValue(outcomes, req.outcome, 'body.conditions.outcome');
      if (req.description !== undefined) patch.description = checkDescription(req.description);
      if (req.active === true) {
        // Re-enabling (or confirming) clears the failure count and the reason (spec §3).
        Object.assign(patch, { active: true, consecutiveFailures: 0, disabledReason: null });
      }
      const row = await withTransaction(pool, async (c) => {
        const current = await findSubscription(c, req.projectId, req.id, true);
        if (!current) throw notFound('Webhook');
        if (req.active === false && current.active) {
          patch.active = false;
          patch.disabledReason = DISABLED_BY_REQUEST;
        }
        const updated = await updateSubscription(c, current.id, patch);
        if (patch.active === false) await stopPendingDeliveries(c, current.id);
        return updated;
      });
      return { subscription: toSubscription(row) };
    },

    async deleteSubscription(req, hctx) {
      requireWebhookAdmin(hctx);
      if (!(await deleteSubscription(pool, req.projectId, req.id))) throw notFound('Webhook');
      w.logger.info({ subscriptionId: req.id, projectId: req.projectId }, 'webhook subscription deleted');
      return {};
    },

    async listDeliveries(req, hctx) {
      requireMember(hctx);
      const status = req.status === undefined ? undefined : enumValue(deliveryStatus, req.status, 'query.status');
      const sub = await findSubscription(pool, req.projectId, req.webhookId);
      if (!sub) throw notFound('Webhook');
      const p = paging(req.page);
      const [total, rows] = await Promise.all([
        countDeliveries(pool, sub.id, status),
        listDeliveries(pool, sub.id, status, p.limit, p.offset),
      ]);
      return { deliveries: rows.map(toDelivery), page: pageInfo(p, total) };
    },
  };
}
