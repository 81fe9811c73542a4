/**
 * Retention, the kit's retentionLoop: at start and then every WEBHOOK_DELIVERY_SWEEP_INTERVAL_SECONDS, finished
 * deliveries (and their attempts) whose event is older than WEBHOOK_DELIVERY_RETENTION_DAYS are deleted, so the
 * delivery history does not grow with every event forever. A failed sweep is retried with the Loop's backoff;
 * replicas may sweep at the same time (a row deleted twice is deleted once).
 */
import type { Queryable } from '@assay/db';
import { retentionLoop, type Clock, type Worker } from '@assay/service-kit';
import { deleteFinishedBefore } from '../store/deliveries';
import { subscriptionIdsAfter } from '../store/webhooks';
import type { Wiring } from '../wiring';

const DAY_MS = 86_400_000;

export interface SweepOptions {
  pool: Queryable;
  now: Clock;
  retentionDays: number;
  /** Rows deleted by one statement. */
  rowsAtOnce?: number;
  /** Subscription ids read at once. */
  subscriptionsAtOnce?: number;
}

/** Deletes every delivery expired at `now()`, subscription by subscription, in bounded statements. Returns how many. */
export async function sweepOnce(o: SweepOptions): Promise<number> {
  const before = new Date(o.now().getTime() - o.retentionDays * DAY_MS);
  const rows = o.rowsAtOnce ?? 1000;
  const subscriptions = o.subscriptionsAtOnce ?? 500;
  let total = 0;
  for (let after = ''; ;) {
    const ids = await subscriptionIdsAfter(o.pool, after, subscriptions);
    for (const id of ids) {
      let n: number;
      do {
        n = await deleteFinishedBefore(o.pool, id, before, rows);
        total += n;
      } while (n === rows);
    }
    if (ids.length < subscriptions) return total;
    after = ids[ids.length - 1]!;
  }
}

export function retentionSweeper(w: Pick<Wiring, 'pool' | 'clock' | 'config' | 'metrics' | 'logger'>): Worker {
  return retentionLoop({
    name: 'webhook-delivery-retention-sweeper',
    sweep: () => sweepOnce({ pool: w.pool, now: w.clock, retentionDays: w.config.WEBHOOK_DELIVERY_RETENTION_DAYS }),
    intervalMs: w.config.WEBHOOK_DELIVERY_SWEEP_INTERVAL_SECONDS * 1000,
    logger: w.logger,
    metrics: w.metrics,
    what: 'expired webhook deliveries',
  });
}
