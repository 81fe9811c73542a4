/** Runs that stopped reporting: `running` with no activity for RUN_INACTIVITY_TIMEOUT_SECONDS → `incomplete` + RUN_FINISHED. */
import { withTransaction } from '@assay/db';
import { Loop } from '@assay/service-kit';
import type { Wiring } from '../wiring';
import { enqueueRunEvent } from '../store/outbox';
import { lockStaleRuns, markIncomplete, refreshRunStats } from '../store/test-runs';

const BATCH = 100;

export async function sweepOnce(w: Wiring): Promise<number> {
  const now = w.clock();
  const cutoff = new Date(now.getTime() - w.config.RUN_INACTIVITY_TIMEOUT_SECONDS * 1000);
  const swept = await withTransaction(w.pool, async (c) => {
    const stale = await lockStaleRuns(c, cutoff, BATCH);
    for (const run of stale) {
      await refreshRunStats(c, run.id);
      // refreshRunStats touches last_activity_at; the end time is the last real activity.
      const done = await markIncomplete(c, run.id, run.lastActivityAt);
      await enqueueRunEvent(c, 'RUN_FINISHED', done, w.links, now);
    }
    return stale.length;
  });
  if (swept > 0) {
    w.logger.info({ swept }, 'runs swept to incomplete');
    w.eventsWritten();
  }
  return swept;
}

export function sweeper(w: Wiring): Loop {
  const intervalMs = Math.min(60_000, Math.max(200, (w.config.RUN_INACTIVITY_TIMEOUT_SECONDS * 1000) / 4));
  return new Loop('incomplete-sweeper', async () => (await sweepOnce(w)) === BATCH, intervalMs, w.logger);
}
