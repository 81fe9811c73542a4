/**
 * Retention, the kit's retentionLoop: at start and then every REPORT_SWEEP_INTERVAL_SECONDS, reports (ready or
 * failed, and their PDFs) older than REPORT_RETENTION_DAYS are deleted. A failed sweep is retried with the Loop's
 * backoff.
 */
import type { Queryable } from '@assay/db';
import { retentionLoop, type Clock, type Worker } from '@assay/service-kit';
import { deleteExpired } from '../store/reports';
import type { Wiring } from '../wiring';

const BATCH = 500;

/** Deletes every report expired at `now()`, in batches. Returns how many. */
export async function sweepOnce(rt: { pool: Queryable; now: Clock }): Promise<number> {
  const now = rt.now();
  let total = 0;
  for (;;) {
    const n = await deleteExpired(rt.pool, now, BATCH);
    total += n;
    if (n < BATCH) return total;
  }
}

export function retentionSweeper(w: Wiring): Worker {
  return retentionLoop({
    name: 'report-retention-sweeper',
    sweep: () => sweepOnce({ pool: w.pool, now: w.clock }),
    intervalMs: w.config.REPORT_SWEEP_INTERVAL_SECONDS * 1000,
    logger: w.logger,
    metrics: w.metrics,
    what: 'expired reports',
  });
}
