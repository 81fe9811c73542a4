/**
 * What the webhooks handlers and workers share: the pool, the box that encrypts signing secrets, the HTTP
 * sender (with its SSRF guard), the metrics, the broker and the clock.
 */
import type { Pool } from '@assay/db';
import type { EventBus } from '@assay/events';
import type { Logger } from '@assay/logger';
import { systemClock, type Clock, type ServiceContext } from '@assay/service-kit';
import type { WebhooksConfig } from './config';
import { SecretBox } from './domain/secrets';
import { Sender } from './domain/sender';
import { webhookMetrics, type WebhookMetrics } from './metrics';

export interface Wiring {
  config: WebhooksConfig;
  pool: Pool;
  logger: Logger;
  bus: EventBus;
  secrets: SecretBox;
  sender: Sender;
  metrics: WebhookMetrics;
  clock: Clock;
}

export function wire(ctx: ServiceContext<WebhooksConfig>, overrides: { clock?: Clock } = {}): Wiring {
  const { config } = ctx;
  return {
    config,
    pool: ctx.pool,
    logger: ctx.logger,
    bus: ctx.bus!,
    secrets: new SecretBox(config.SECRETS_KEY),
    sender: new Sender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS }),
    metrics: webhookMetrics(ctx.metrics.registry),
    clock: overrides.clock ?? systemClock,
  };
}
