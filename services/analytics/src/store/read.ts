/** Reads of the read model behind the public endpoints: windows (one row per test / file / project), days, runs. */
import type { Queryable } from '@assay/db';
import type { Percentiles } from '../domain/histogram';
import { emptyAgg, type Agg } from '../domain/stats';

export interface ProjectState {
  key: number;
  asOf: number;
  lastFoldedAt: Date | null;
  /** Changes with every change of the project's rollups. */
  version: number;
}

export async function projectState(db: Queryable, projectId: string): Promise<ProjectState | undefined> {
  const { rows } = await db.query('SELECT project_key, as_of_day, last_folded_at, version FROM projects WHERE project_id = $1', [
    projectId,
  ]);
  const r = rows[0];
  return r ? { key: r.project_key, asOf: r.as_of_day, lastFoldedAt: r.last_folded_at, version: Number(r.version) } : undefined;
}

/** A test over a window: identity, counts, extremes, percentiles, latest timestamps. */
export interface TestFigures {
  testId: string;
  title: string;
  titlePath: string[];
  file: string;
  projectName: string;
  tags: string[];
  agg: Agg;
  p: Percentiles;
}

export interface SpecFigures {
  file: string;
  tests: number;
  agg: Agg;
  p: Percentiles;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
export function aggOf(r: any): Agg {
  return {
    ...emptyAgg(),
    executions: Number(r.executions ?? 0),
    passed: Number(r.passed ?? 0),
    failed: Number(r.failed ?? 0),
    flaky: Number(r.flaky ?? 0),
    skipped: Number(r.skipped ?? 0),
    durSum: Number(r.dur_sum ?? 0),
    durMin: r.dur_min === null || r.dur_min === undefined ? null : Number(r.dur_min),
    durMax: r.dur_max === null || r.dur_max === undefined ? null : Number(r.dur_max),
    lastRunAt: r.last_run_at ? r.last_run_at.getTime() : null,
    lastFailedAt: r.last_failed_at ? r.last_failed_at.getTime() : null,
    lastFlakyAt: r.last_flaky_at ? r.last_flaky_at.getTime() : null,
    runs: Number(r.runs ?? 0),
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
const percentilesOfRow = (r: any): Percentiles => ({ p50: Number(r.p50), p90: Number(r.p90), p95: Number(r.p95), p99: Number(r.p99) });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
export const testOfRow = (r: any): TestFigures => ({
  testId: r.test_id,
  title: r.title,
  titlePath: r.title_path,
  file: r.file,
  projectName: r.project_name,
  tags: r.tags,
  agg: aggOf(r),
  p: percentilesOfRow(r),
});

const TEST_COLUMNS = `t.test_id, t.title, t.title_path, t.project_name, t.tags, f.file, w.executions, w.passed, w.failed, w.flaky,
  w.skipped, w.dur_sum, w.dur_min, w.dur_max, w.p50, w.p90, w.p95, w.p99, w.last_run_at, w.last_failed_at, w.last_flaky_at`;

export type TestFilter = 'failing' | 'flaky' | 'stable' | 'slow';
export type TestSort = 'flaky_rate' | 'failure_rate' | 'p95_duration' | 'executions';

const FILTERS: Record<TestFilter, string> = {
  failing: 'w.failed > 0',
  flaky: 'w.flaky > 0',
  stable: 'w.failed = 0 AND w.flaky = 0 AND w.executions > w.skipped',
  slow: 'w.executions > w.skipped AND w.p95 >= $5',
};

const SORTS: Record<TestSort, string> = {
  flaky_rate: 'coalesce(w.flaky::float8 / nullif(w.executions - w.skipped, 0), 0)',
  failure_rate: 'coalesce(w.failed::float8 / nullif(w.executions - w.skipped, 0), 0)',
  p95_duration: 'w.p95',
  executions: 'w.executions',
};

export async function listTests(
  db: Queryable,
  projectKey: number,
  window: number,
  o: { filter?: TestFilter; sort: TestSort; order: 'asc' | 'desc'; limit: number; offset: number; slowThresholdMs: number },
): Promise<{ total: number; tests: TestFigures[] }> {
  const where = o.filter ? `AND ${FILTERS[o.filter]}` : '';
  const { rows } = await db.query(
    `SELECT ${TEST_COLUMNS}, count(*) OVER () AS total
       FROM test_windows w JOIN tests t ON t.test_key = w.test_key JOIN files f ON f.file_key = t.file_key
      WHERE w.project_key = $1 AND w.window_days = $2 ${where}
      ORDER BY ${SORTS[o.sort]} ${o.order === 'asc' ? 'ASC' : 'DESC'}, t.title COLLATE "C", t.test_id
      LIMIT $3 OFFSET $4`,
    [projectKey, window, o.limit, o.offset, ...(o.filter === 'slow' ? [o.slowThresholdMs] : [])],
  );
  if (rows.length === 0 && o.offset > 0) {
    const count = await db.query(
      `SELECT count(*) AS n FROM test_windows w WHERE w.project_key = $1 AND w.window_days = $2 ${where.replace('$5', '$3')}`,
      [projectKey, window, ...(o.filter === 'slow' ? [o.slowThresholdMs] : [])],
    );
    return { total: Number(count.rows[0].n), tests: [] };
  }
  return { total: rows[0] ? Number(rows[0].total) : 0, tests: rows.map(testOfRow) };
}

export type TopKind = 'failing' | 'flaky' | 'slowest';

const TOP: Record<TopKind, { where: string; order: string }> = {
  failing: {
    where: 'w.failed > 0',
    order: 'w.failed DESC, w.failed::float8 / nullif(w.executions - w.skipped, 0) DESC NULLS LAST',
  },
  flaky: {
    where: 'w.flaky > 0',
    order: 'w.flaky DESC, w.flaky::float8 / nullif(w.executions - w.skipped, 0) DESC NULLS LAST',
  },
  slowest: {
    where: 'w.executions > w.skipped',
    order: 'w.p95 DESC, w.dur_sum::float8 / (w.executions - w.skipped) DESC',
  },
};

export async function topTests(db: Queryable, projectKey: number, window: number, kind: TopKind, limit: number): Promise<TestFigures[]> {
  const { rows } = await db.query(
    `SELECT ${TEST_COLUMNS}
       FROM test_windows w JOIN tests t ON t.test_key = w.test_key JOIN files f ON f.file_key = t.file_key
      WHERE w.project_key = $1 AND w.window_days = $2 AND ${TOP[kind].where}
      ORDER BY ${TOP[kind].order}, t.title COLLATE "C", t.test_id
      LIMIT $3`,
    [projectKey, window, limit],
  );
  return rows.map(testOfRow);
}

/** Every test that ran in the window, slowest p95 first. */
export async function performance(db: Queryable, projectKey: number, window: number): Promise<TestFigures[]> {
  const { rows } = await db.query(
    `SELECT ${TEST_COLUMNS}
       FROM test_windows w JOIN tests t ON t.test_key = w.test_key JOIN files f ON f.file_key = t.file_key
      WHERE w.project_key = $1 AND w.window_days = $2 AND w.executions > w.skipped
      ORDER BY w.p95 DESC, t.title COLLATE "C", t.test_id`,
    [projectKey, window],
  );
  return rows.map(testOfRow);
}

export async function listSpecs(
  db: Queryable,
  projectKey: number,
  window: number,
  o: { limit: number; offset: number },
): Promise<{ total: number; specs: SpecFigures[] }> {
  const { rows } = await db.query(
    `WITH counts AS (
       SELECT t.file_key, count(*) AS tests FROM test_windows w JOIN tests t ON t.test_key = w.test_key
        WHERE w.project_key = $1 AND w.window_days = $2 GROUP BY t.file_key)
     SELECT f.file, coalesce(c.tests, 0) AS tests, w.executions, w.passed, w.failed, w.flaky, w.skipped, w.dur_sum, w.dur_min,
            w.dur_max, w.p50, w.p90, w.p95, w.p99, w.last_run_at, count(*) OVER () AS total
       FROM file_windows w JOIN files f ON f.file_key = w.file_key LEFT JOIN counts c ON c.file_key = w.file_key
      WHERE w.project_key = $1 AND w.window_days = $2
      ORDER BY w.failed DESC, f.file COLLATE "C"
      LIMIT $3 OFFSET $4`,
    [projectKey, window, o.limit, o.offset],
  );
  if (rows.length === 0 && o.offset > 0) {
    const count = await db.query('SELECT count(*) AS n FROM file_windows WHERE project_key = $1 AND window_days = $2', [
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

/** Totals and percentiles of the project's results in the window. */
export async function projectWindow(db: Queryable, projectKey: number, window: number): Promise<{ agg: Agg; p: Percentiles }> {
  const { rows } = await db.query(
    `SELECT executions, passed, failed, flaky, skipped, dur_sum, dur_min, dur_max, p50, p90, p95, p99
       FROM project_windows WHERE project_key = $1 AND window_days = $2`,
    [projectKey, window],
  );
  return rows[0] ? { agg: aggOf(rows[0]), p: percentilesOfRow(rows[0]) } : { agg: emptyAgg(), p: { p50: 0, p90: 0, p95: 0, p99: 0 } };
}

export interface RunCounts {
  total: number;
  passed: number;
  failed: number;
  interrupted: number;
  incomplete: number;
  running: number;
}

export const emptyRunCounts = (): RunCounts => ({ total: 0, passed: 0, failed: 0, interrupted: 0, incomplete: 0, running: 0 });

/** Folded runs that started in [from, until], by final status. */
export async function runCounts(db: Queryable, projectKey: number, from: number, until: number): Promise<RunCounts> {
  const { rows } = await db.query(
    `SELECT status, count(*) AS n FROM runs WHERE project_key = $1 AND folded_at IS NOT NULL AND day BETWEEN $2 AND $3 GROUP BY status`,
    [projectKey, from, until],
  );
  const out = emptyRunCounts();
  for (const r of rows) {
    const n = Number(r.n);
    out.total += n;
    if (r.status in out && r.status !== 'total') out[r.status as keyof RunCounts] += n;
  }
  return out;
}

export interface DayFigures {
  day: number;
  runs: number;
  agg: Agg;
}

/** One entry per day of [from, until] (zeros where nothing ran). */
export async function trend(db: Queryable, projectKey: number, from: number, until: number): Promise<DayFigures[]> {
  const [results, runs] = await Promise.all([
    db.query(
      `SELECT day, sum(executions) AS executions, sum(passed) AS passed, sum(failed) AS failed, sum(flaky) AS flaky,
              sum(skipped) AS skipped, sum(dur_sum) AS dur_sum
         FROM project_days WHERE project_key = $1 AND day BETWEEN $2 AND $3 GROUP BY day`,
      [projectKey, from, until],
    ),
    db.query(
      `SELECT day, count(*) AS runs FROM runs WHERE project_key = $1 AND folded_at IS NOT NULL AND day BETWEEN $2 AND $3 GROUP BY day`,
      [projectKey, from, until],
    ),
  ]);
  return fillDays(from, until, results.rows, runs.rows);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg rows
export function fillDays(from: number, until: number, results: any[], runs: any[]): DayFigures[] {
  const byDay = new Map(results.map((r) => [Number(r.day), aggOf(r)]));
  const runsByDay = new Map(runs.map((r) => [Number(r.day), Number(r.runs)]));
  const out: DayFigures[] = [];
  for (let d = from; d <= until; d++) out.push({ day: d, runs: runsByDay.get(d) ?? 0, agg: byDay.get(d) ?? emptyAgg() });
  return out;
}

export interface BreakdownFigures {
  name: string;
  runs: number;
  agg: Agg;
}

/** Most runs first, then name. */
export function mergeBreakdown(results: Map<string, Agg>, runs: Map<string, number>): BreakdownFigures[] {
  const names = new Set([...results.keys(), ...runs.keys()]);
  return [...names]
    .map((name) => ({ name, runs: runs.get(name) ?? 0, agg: results.get(name) ?? emptyAgg() }))
    .sort((a, b) => b.runs - a.runs || b.agg.executions - a.agg.executions || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const SUMS = `sum(executions) AS executions, sum(passed) AS passed, sum(failed) AS failed, sum(flaky) AS flaky,
  sum(skipped) AS skipped, sum(dur_sum) AS dur_sum`;

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
    db.query(
      `SELECT d.value AS name, ${SUMS} FROM project_days p JOIN dims d ON d.dim_key = p.${col}
        WHERE p.project_key = $1 AND p.day BETWEEN $2 AND $3 GROUP BY d.value`,
      [projectKey, from, until],
    ),
    db.query(
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
  const { rows } = await db.query(
    `SELECT d.value AS name, sum(runs) AS runs, ${SUMS} FROM tag_days g JOIN dims d ON d.dim_key = g.tag_key
      WHERE g.project_key = $1 AND g.day BETWEEN $2 AND $3 GROUP BY d.value`,
    [projectKey, from, until],
  );
  return mergeBreakdown(
    new Map(rows.map((r) => [r.name as string, aggOf(r)])),
    new Map(rows.map((r) => [r.name as string, Number(r.runs)])),
  );
}

/** Runs running now, newest first: their latest snapshots, and how many there are. */
export async function activeRuns(db: Queryable, projectKey: number, limit: number): Promise<{ count: number; snapshots: Buffer[] }> {
  const [count, list] = await Promise.all([
    db.query(`SELECT count(*) AS n FROM runs WHERE project_key = $1 AND status = 'running'`, [projectKey]),
    db.query(`SELECT snapshot FROM runs WHERE project_key = $1 AND status = 'running' ORDER BY start_time DESC, run_id LIMIT $2`, [
      projectKey,
      limit,
    ]),
  ]);
  return { count: Number(count.rows[0].n), snapshots: list.rows.map((r) => r.snapshot as Buffer).filter(Boolean) };
}

export async function filterValues(
  db: Queryable,
  projectKey: number,
): Promise<Record<'environment' | 'branch' | 'developer' | 'tag', string[]>> {
  const { rows } = await db.query(`SELECT kind, value FROM dims WHERE project_key = $1 AND value <> '' ORDER BY kind, value COLLATE "C"`, [
    projectKey,
  ]);
  const out = { environment: [] as string[], branch: [] as string[], developer: [] as string[], tag: [] as string[] };
  for (const r of rows) out[r.kind as keyof typeof out]?.push(r.value);
  return out;
}
