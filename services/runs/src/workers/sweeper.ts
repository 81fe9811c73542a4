/** Runs that stopped reporting: `running` with no activity for RUN_INACTIVITY_TIMEOUT_SECONDS → `incomplete` + RUN_FINISHED. */
import { withTransaction } from '@assay/db';
import type { Wiring } from '../wiring';
import { enqueueRunEvent } from '../store/outbox';
import { lockStaleRuns, markIncomplete, refreshRunStats } from '../store/runs';
import { Loop } from '@assay/service-kit';

export async function sweepOnce(rt: Wiring): Promise<number> {
  const cutoff = new Date(rt.now().getTime() - rt.config.RUN_INACTIVITY_TIMEOUT_SECONDS * 1000);
  const swept = await withTransaction(rt.pool, async (c) => {
    const stale = await lockStaleRuns(c, cutoff, 100);
    for (const run of stale) {
      await refreshRunStats(c, run.id);
      // refreshRunStats touches last_activity_at; the end time is the last real activity.
      await c.query('UPDATE runs SET last_activity_at = $2 WHERE id = $1', [run.id, run.lastActivityAt]);
      const done = await markIncomplete(c, run.id);
      await enqueueRunEvent(c, 'RUN_FINISHED', done, rt.links);
    }
    return stale.length;
  });
  if (swept > 0) {
    rt.logger.info({ swept }, 'runs swept to incomplete');
    rt.eventsWritten();
  }
  return swept;
}

export function sweeper(rt: Wiring): Loop {
  const intervalMs = Math.min(60_000, Math.max(200, (rt.config.RUN_INACTIVITY_TIMEOUT_SECONDS * 1000) / 4));
  return new Loop('incomplete-sweeper', async () => (await sweepOnce(rt)) === 100, intervalMs, rt.logger);
}
