/** SQL of the `specs` family: the window's spec files, most failures first, then file name, paged. */
import type { Queryable } from '@assay/db';
import { read } from './read';
import type { Percentiles } from '../domain/histogram';
import type { Agg } from '../domain/stats';
import { aggOf, msOf, percentilesOfRow } from './windows';

export interface SpecFigures {
  file: string;
  tests: number;
  agg: Agg;
  p: Percentiles;
}

export async function listSpecs(
  db: Queryable,
  projectKey: number,
  window: number,
  o: { limit: number; offset: number },
): Promise<{ total: number; specs: SpecFigures[] }> {
  const { rows } = await read(
    db,
    `WITH counts AS (
       SELECT t.file_key, count(*) AS tests FROM test_windows w JOIN tests t ON t.test_key = w.test_key
        WHERE w.project_key = $1 AND w.window_days = $2 GROUP BY t.file_key)
     SELECT f.file, coalesce(c.tests, 0) AS tests, w.executions, w.passed, w.failed, w.flaky, w.skipped, w.dur_sum, w.dur_min,
            w.dur_max, w.p50, w.p90, w.p95, w.p99, ${msOf('w.last_run_at')}, count(*) OVER () AS total
       FROM file_windows w JOIN files f ON f.file_key = w.file_key LEFT JOIN counts c ON c.file_key = w.file_key
      WHERE w.project_key = $1 AND w.window_days = $2
      ORDER BY w.failed DESC, f.file COLLATE "C"
      LIMIT $3 OFFSET $4`,
    [projectKey, window, o.limit, o.offset],
  );
  if (rows.length === 0 && o.offset > 0) {
    const count = await read(db, 'SELECT count(*) AS n FROM file_windows WHERE project_key = $1 AND window_days = $2', [
      projectKey,
      window,
    ]);
    return { total: Number(count.rows[0].n), specs: [] };
  }
  return {
    total: rows[0] ? Number(rows[0].total) : 0,
    specs: rows.map((r) => ({ file: r.file, tests: Number(r.tests), agg: aggOf(r), p: percentilesOfRow(r) })),
  };
}
