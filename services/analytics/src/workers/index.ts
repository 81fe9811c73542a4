import type { Worker } from '@assay/service-kit';
import type { Wiring } from '../wiring';
import { runEventConsumer } from './consumer';
import { Roller } from './roller';

/** Stopped in reverse: the roller (a rebuild in hand finishes its batch), then the consumer. */
export function workers(w: Wiring): Worker[] {
  const consumer = runEventConsumer({
    bus: w.bus,
    model: w.model,
    logger: w.logger.child({ component: 'consumer' }),
    groupId: w.config.ANALYTICS_CONSUMER_GROUP,
    onFolded: (runs, results, ms) => w.metrics.folded(runs, results, ms),
    onEvent: (type, outcome) => w.metrics.event(type, outcome),
  });
  const roller = new Roller({
    model: w.model,
    logger: w.logger.child({ component: 'roller' }),
    intervalMs: w.config.ANALYTICS_ROLL_INTERVAL_MS,
    rebuildOnEmpty: w.config.ANALYTICS_REBUILD_ON_EMPTY,
  });
  return [consumer, roller];
}
