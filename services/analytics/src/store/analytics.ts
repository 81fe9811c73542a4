/** SQL of the `analytics` family: the performance list and the breakdowns of the summary. */
import type { Queryable } from '@assay/db';
import { read } from './read';
import { MAX_PERFORMANCE_ROWS } from '@assay/contracts/analytics/values';
import { aggOf, mergeBreakdown, SUMS, TEST_COLUMNS, testOfRow, type BreakdownFigures, type TestFigures } from './windows';

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

/** JavaScript's Math.round(part / whole × times) / by, in float8 alike: halves up (Postgres' round() gives halves to even). */
function roundedRatio(part: string, whole: string, times: number, by: number): string {
  const x = `(${part}::float8 / ${whole} * ${times})`;
  return `(floor(${x}) + (${x} - floor(${x}) >= 0.5)::int) / ${by}::float8`;
}

/**
 * The public performance rows (AnalyticsPerformance[]) as the UTF-8 bytes of a JSON array, each row's object written
 * by Postgres: the same rows as `performance`, byte for byte what
 * `JSON.stringify(performanceJsonFromColumns(testColumns(...)))` gives (test/unit/performance-json.test.ts).
 * Building up to 1,000 objects in Node (pg rows, then the JSON) cost analytics ~13 ms CPU a request. One row per
 * object rather than one aggregated text: a 380 KiB string lands in V8's large-object space and brought a full GC
 * every few requests (half of analytics' CPU); small strings die young.
 * float8 prints as JavaScript prints numbers (shortest round trip) for every value these columns can hold.
 */
export async function performanceJsonBytes(db: Queryable, projectKey: number, window: number): Promise<Buffer> {
  const ran = '(w.executions - w.skipped)';
  const rate = (col: string) => `CASE WHEN ${ran} > 0 THEN ${roundedRatio(col, ran, 10000, 100)} ELSE 0 END`;
  const { rows } = await read(
    db,
    `SELECT concat(
            '{"testId":', to_json(t.test_id), ',"title":', to_json(t.title), ',"file":', to_json(f.file),
            ',"projectName":', to_json(t.project_name), ',"executions":', w.executions, ',"passed":', w.passed,
            ',"failed":', w.failed, ',"flaky":', w.flaky, ',"skipped":', w.skipped,
            ',"passRate":', ${rate('w.passed')}, ',"failureRate":', ${rate('w.failed')}, ',"flakyRate":', ${rate('w.flaky')},
            ',"avgDuration":', CASE WHEN ${ran} > 0 THEN ${roundedRatio('w.dur_sum', ran, 100, 100)} ELSE 0 END,
            ',"p50Duration":', w.p50, ',"p90Duration":', w.p90, ',"p95Duration":', w.p95, ',"p99Duration":', w.p99,
            ',"minDuration":', coalesce(w.dur_min, 0), ',"maxDuration":', coalesce(w.dur_max, 0),
            ',"lastRunAt":', CASE WHEN date_trunc('milliseconds', w.last_run_at) > 'epoch'::timestamptz
              THEN to_json(to_char(date_trunc('milliseconds', w.last_run_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
              ELSE 'null' END, '}') AS j
       FROM test_windows w JOIN tests t ON t.test_key = w.test_key JOIN files f ON f.file_key = t.file_key
      WHERE w.project_key = $1 AND w.window_days = $2 AND w.executions > w.skipped
      ORDER BY w.p95 DESC, t.title COLLATE "C", t.test_id
      LIMIT $3`,
    [projectKey, window, MAX_PERFORMANCE_ROWS],
  );
  const objects = rows.map((r) => r.j as string);
  let size = 2 + Math.max(objects.length - 1, 0);
  for (const o of objects) size += Buffer.byteLength(o);
  const out = Buffer.allocUnsafe(size);
  let at = out.write('[');
  objects.forEach((o, i) => {
    if (i > 0) at += out.write(',', at);
    at += out.write(o, at);
  });
  out.write(']', at);
  return out;
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
