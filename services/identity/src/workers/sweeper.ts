/**
 * Retention, the kit's retentionLoop: at start and then every SESSION_SWEEP_INTERVAL_SECONDS, web app sessions
 * that ended (signed out, idle, or past SESSION_MAX_DAYS) and invitations and sign-in links that were used or
 * expired are deleted SESSION_RETENTION_DAYS after they ended. A session row keeps the browser's user agent and
 * address of its sign-in: without this they would be kept for every sign-in forever. A live session or an unused
 * link in its validity is never touched. A failed sweep is retried with the Loop's backoff; replicas may sweep at
 * the same time (a row deleted twice is deleted once).
 */
import type { Queryable } from '@assay/db';
import { retentionLoop, type Worker } from '@assay/service-kit';
import { deleteEndedSessions, deleteSpentLinks } from '../store/sessions';
import type { Wiring } from '../wiring';

export interface SweepOptions {
  pool: Queryable;
  retentionDays: number;
  /** Rows deleted by one statement. */
  rowsAtOnce?: number;
}

/** Deletes every ended session and spent link past the retention, in bounded statements. Returns how many. */
export async function sweepOnce(o: SweepOptions): Promise<number> {
  const seconds = o.retentionDays * 86_400;
  const rows = o.rowsAtOnce ?? 1000;
  let total = 0;
  for (const remove of [deleteEndedSessions, deleteSpentLinks]) {
    let n: number;
    do {
      n = await remove(o.pool, seconds, rows);
      total += n;
    } while (n === rows);
  }
  return total;
}

export function retentionSweeper(w: Pick<Wiring, 'pool' | 'config' | 'metrics' | 'logger'>): Worker {
  return retentionLoop({
    name: 'session-retention-sweeper',
    sweep: () => sweepOnce({ pool: w.pool, retentionDays: w.config.SESSION_RETENTION_DAYS }),
    intervalMs: w.config.SESSION_SWEEP_INTERVAL_SECONDS * 1000,
    logger: w.logger,
    metrics: w.metrics,
    what: 'ended sessions and spent links',
  });
}
