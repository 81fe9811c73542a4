/**
 * The webhooks service definition: subscriptions RPC, the run-lifecycle consumer and the dispatcher.
 * `webhooksService(config)` is what `main.ts` runs; tests may start it in-process with another clock.
 */
import type { ServiceDefinition } from '@assay/service-kit';
import type { WebhooksConfig } from './config';
import { SecretBox } from './domain/secrets';
import { Sender } from './domain/sender';
import { routes } from './routes';
import { RunEventConsumer } from './workers/consumer';
import { Dispatcher } from './workers/dispatcher';
import { webhookMetrics } from './metrics';

export function webhooksService(config: WebhooksConfig, migrationsDir: string, clock?: () => Date): ServiceDefinition<WebhooksConfig> {
  const secrets = new SecretBox(config.SECRETS_KEY);
  return {
    name: 'webhooks',
    config,
    db: { schema: 'webhooks', migrationsDir },
    kafka: true,
    routes: routes(secrets),
    workers: (ctx) => {
      const metrics = webhookMetrics(ctx.metrics.registry);
      const sender = new Sender({ timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS });
      const dispatcher = new Dispatcher({
        pool: ctx.pool,
        logger: ctx.logger.child({ component: 'dispatcher' }),
        sender,
        secrets,
        retryDelaysSeconds: config.WEBHOOK_RETRY_DELAYS_SECONDS,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        concurrency: config.WEBHOOK_CONCURRENCY,
        pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
        clock,
        onAttempt: (_d, completion, result) => {
          metrics.attempt(result.ok, result.statusCode, result.responseMs);
          if (completion.disabledSubscription) metrics.disabled();
        },
      });
      const consumer = new RunEventConsumer({
        bus: ctx.bus!,
        pool: ctx.pool,
        logger: ctx.logger.child({ component: 'consumer' }),
        groupId: config.WEBHOOK_CONSUMER_GROUP,
        onDeliveries: (count) => {
          metrics.created(count);
          dispatcher.wake();
        },
        clock,
      });
      const agent = { name: 'webhook-http-agent', start: async () => undefined, stop: () => sender.close() };
      // Started in order, stopped in reverse: the consumer stops first, then the dispatcher finishes the
      // attempts in hand, then the HTTP agent closes its connections.
      return [agent, dispatcher, consumer];
    },
  };
}
