/** SQL of the `dashboard` family: the runs running now. */
import type { Queryable } from '@assay/db';
import { read } from './read';

/** Runs running now, newest first: their latest snapshots, and how many there are. */
export async function activeRuns(db: Queryable, projectKey: number, limit: number): Promise<{ count: number; snapshots: Buffer[] }> {
  const [count, list] = await Promise.all([
    read(db, `SELECT count(*) AS n FROM runs WHERE project_key = $1 AND status = 'running'`, [projectKey]),
    read(db, `SELECT snapshot FROM runs WHERE project_key = $1 AND status = 'running' ORDER BY start_time DESC, run_id LIMIT $2`, [
      projectKey,
      limit,
    ]),
  ]);
  return { count: Number(count.rows[0].n), snapshots: list.rows.map((r) => r.snapshot as Buffer).filter(Boolean) };
}
