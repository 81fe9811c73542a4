/** SQL of the `analytics` family: the performance list and the breakdowns of the summary. */
import type { Queryable } from '@assay/db';
import type { PerformanceRow } from '../domain/view';
import { read } from './read';
import { MAX_PERFORMANCE_ROWS } from '@assay/contracts/analytics/values';
import { aggOf, mergeBreakdown, msOf, SUMS, TEST_COLUMNS, testOfRow, type BreakdownFigures, type TestFigures } from './windows';

/** Every test that ran in the window, slowest p95 first, at most MAX_PERFORMANCE_ROWS. */
export async function performance(db: Queryable, projectKey: number, window: number): Promise<TestFigures[]> {
  const { rows } = await read(
    db,
    `SELECT ${TEST_COLUMNS}
       FROM test_windows w JOIN tests t ON t.test_key = w.test_key JOIN files f ON f.file_key = t.file_key
      WHERE w.project_key = $1 AND w.window_days = $2 AND w.executions > w.skipped
      ORDER BY w.p95 DESC, t.title COLLATE "C", t.test_id
      LIMIT $3`,
    [projectKey, window, MAX_PERFORMANCE_ROWS],
  );
  return rows.map(testOfRow);
}

/**
 * The same rows as `performance` with only the columns of the public rows (no title path or tags: parsing those
 * arrays was a good part of the request), as pg rows for `performanceJson`.
 */
export async function performanceRows(db: Queryable, projectKey: number, window: number): Promise<PerformanceRow[]> {
  const { rows } = await read(
    db,
    `SELECT t.test_id, t.title, f.file, t.project_name, w.executions, w.passed, w.failed, w.flaky, w.skipped, w.dur_sum,
            w.dur_min, w.dur_max, w.p50, w.p90, w.p95, w.p99, ${msOf('w.last_run_at')}
       FROM test_windows w JOIN tests t ON t.test_key = w.test_key JOIN files f ON f.file_key = t.file_key
      WHERE w.project_key = $1 AND w.window_days = $2 AND w.executions > w.skipped
      ORDER BY w.p95 DESC, t.title COLLATE "C", t.test_id
      LIMIT $3`,
    [projectKey, window, MAX_PERFORMANCE_ROWS],
  );
  return rows as PerformanceRow[];
}

/** By environment or branch: results from the project's daily rows, runs from the runs. */
export async function breakdown(
  db: Queryable,
  projectKey: number,
  kind: 'environment' | 'branch',
  from: number,
  until: number,
): Promise<BreakdownFigures[]> {
  const col = kind === 'environment' ? 'env_key' : 'branch_key';
  const [results, runs] = await Promise.all([
    read(
      db,
      `SELECT d.value AS name, ${SUMS} FROM project_days p JOIN dims d ON d.dim_key = p.${col}
        WHERE p.project_key = $1 AND p.day BETWEEN $2 AND $3 GROUP BY d.value`,
      [projectKey, from, until],
    ),
    read(
      db,
      `SELECT ${kind} AS name, count(*) AS runs FROM runs
        WHERE project_key = $1 AND folded_at IS NOT NULL AND day BETWEEN $2 AND $3 GROUP BY ${kind}`,
      [projectKey, from, until],
    ),
  ]);
  return mergeBreakdown(
    new Map(results.rows.map((r) => [r.name as string, aggOf(r)])),
    new Map(runs.rows.map((r) => [r.name as string, Number(r.runs)])),
  );
}

export async function byTag(db: Queryable, projectKey: number, from: number, until: number): Promise<BreakdownFigures[]> {
  const { rows } = await read(
    db,
    `SELECT d.value AS name, sum(runs) AS runs, ${SUMS} FROM tag_days g JOIN dims d ON d.dim_key = g.tag_key
      WHERE g.project_key = $1 AND g.day BETWEEN $2 AND $3 GROUP BY d.value`,
    [projectKey, from, until],
  );
  return mergeBreakdown(
    new Map(rows.map((r) => [r.name as string, aggOf(r)])),
    new Map(rows.map((r) => [r.name as string, Number(r.runs)])),
  );
}
