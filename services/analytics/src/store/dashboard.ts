/** SQL of the `dashboard` family: the runs running now. */
import type { Queryable } from '@assay/db';
import { read } from './read';

/** Runs running now, newest first: their latest snapshots, and how many there are (one statement). */
export async function activeRuns(db: Queryable, projectKey: number, limit: number): Promise<{ count: number; snapshots: Buffer[] }> {
  const { rows } = await read(
    db,
    `SELECT snapshot, count(*) OVER () AS n FROM runs WHERE project_key = $1 AND status = 'running'
      ORDER BY start_time DESC, run_id LIMIT $2`,
    [projectKey, limit],
  );
  return { count: rows[0] ? Number(rows[0].n) : 0, snapshots: rows.map((r) => r.snapshot as Buffer).filter(Boolean) };
}
