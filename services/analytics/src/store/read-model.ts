/**
 * SQL of the read model's upkeep (src/read-model.ts, the roller, the admin RPCs): which runs are folded, which
 * projects are behind today, dropping a project's (or every) rollup for a rebuild, the size of the read model,
 * and the advisory lock that lets one replica rebuild an empty read model at start.
 */
import type { Pool, PoolClient, Queryable } from '@assay/db';

/** Every table that holds a project's rollups (all keyed by project_key), children first. */
const TABLES = [
  'project_windows',
  'file_windows',
  'test_windows',
  'tag_days',
  'project_days',
  'file_days',
  'test_days',
  'runs',
  'tagsets',
  'dims',
  'tests',
  'files',
];

export async function isFolded(q: Queryable, runId: string): Promise<boolean> {
  const { rowCount } = await q.query('SELECT 1 FROM runs WHERE run_id = $1 AND folded_at IS NOT NULL', [runId]);
  return (rowCount ?? 0) > 0;
}

/** Projects whose windows are on a day before `today`, at most `limit`. */
export async function staleProjects(q: Queryable, today: number, limit: number): Promise<string[]> {
  const { rows } = await q.query('SELECT project_id FROM projects WHERE as_of_day < $1 ORDER BY project_key LIMIT $2', [today, limit]);
  return rows.map((r) => r.project_id as string);
}

/** Nothing was ever folded or recorded. */
export async function isEmpty(q: Queryable): Promise<boolean> {
  const { rows } = await q.query('SELECT NOT EXISTS (SELECT 1 FROM runs) AND NOT EXISTS (SELECT 1 FROM projects) AS empty');
  return rows[0].empty;
}

/** Drops the rollups of one (locked) project and moves it to `today` with nothing folded; its version goes up. */
export async function resetProject(c: PoolClient, projectKey: number, today: number): Promise<void> {
  for (const t of TABLES) await c.query(`DELETE FROM ${t} WHERE project_key = $1`, [projectKey]);
  await c.query(
    `UPDATE projects SET as_of_day = $2, runs_folded = 0, results_folded = 0, last_folded_at = NULL, version = version + 1
      WHERE project_key = $1`,
    [projectKey, today],
  );
}

/** Drops everything. Keys keep counting up (no RESTART IDENTITY): a project's new key never meets answers cached for an old one. */
export async function resetAll(q: Queryable): Promise<void> {
  await q.query(`TRUNCATE ${[...TABLES, 'projects'].join(', ')}`);
}

export interface ReadModelSize {
  projects: number;
  runs: number;
  results: number;
  lastFoldedAt: Date | null;
}

/** Projects, folded runs and results, and the latest fold, of one project or of all. */
export async function readModelSize(q: Queryable, projectId?: string): Promise<ReadModelSize> {
  const { rows } = await q.query(
    `SELECT count(*) AS projects, coalesce(sum(runs_folded), 0) AS runs, coalesce(sum(results_folded), 0) AS results,
            max(last_folded_at) AS last_folded_at
       FROM projects WHERE $1::text IS NULL OR project_id = $1`,
    [projectId ?? null],
  );
  const r = rows[0];
  return { projects: Number(r.projects), runs: Number(r.runs), results: Number(r.results), lastFoldedAt: r.last_folded_at };
}

/**
 * Runs `fn` while holding the session advisory lock `name`; when another session holds it, returns false at once
 * without running it.
 */
export async function withTryLock(pool: Pool, name: string, fn: () => Promise<void>): Promise<boolean> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [name]);
    if (!rows[0].locked) return false;
    try {
      await fn();
      return true;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
    }
  } finally {
    client.release();
  }
}
