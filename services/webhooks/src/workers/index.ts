import type { Worker } from '@assay/service-kit';
import type { Wiring } from '../wiring';
import { runEventConsumer } from './consumer';
import { Dispatcher } from './dispatcher';
import { retentionSweeper } from './sweeper';

/** Started in order, stopped in reverse: the retention sweeper first, then the consumer, then the dispatcher finishes the attempts in hand, then the HTTP agent closes its connections. */
export function workers(w: Wiring): Worker[] {
  const { config, metrics } = w;
  const dispatcher = new Dispatcher({
    pool: w.pool,
    logger: w.logger.child({ component: 'dispatcher' }),
    sender: w.sender,
    secrets: w.secrets,
    retryDelaysSeconds: config.WEBHOOK_RETRY_DELAYS_SECONDS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    clock: w.clock,
    onAttempt: (_d, completion, result) => {
      metrics.attempt(result.ok, result.statusCode, result.responseMs);
      if (completion.disabledSubscription) metrics.disabled();
    },
  });
  const consumer = runEventConsumer({
    bus: w.bus,
    pool: w.pool,
    logger: w.logger.child({ component: 'consumer' }),
    groupId: config.WEBHOOK_CONSUMER_GROUP,
    reserve: () => dispatcher.reserve(),
    onDeliveries: (count) => {
      metrics.created(count);
      dispatcher.wake();
    },
    clock: w.clock,
  });
  const agent = { name: 'webhook-http-agent', start: async () => undefined, stop: () => w.sender.close() };
  return [agent, dispatcher, consumer, retentionSweeper(w)];
}
