/**
 * Reads of the read model every family shares: the project's state, its rolling windows (one row per test / file
 * / project), the top lists, run counts and the daily trend. Family-only reads are in the family's store
 * (analytics, dashboard, filters, specs, test-case-explorer, report-data).
 */
import type { Queryable } from '@assay/db';
import { read } from './read';
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
  const { rows } = await read(db, 'SELECT project_key, as_of_day, last_folded_at, version FROM projects WHERE project_id = $1', [
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

/** A timestamp column read as a Date, or as epoch milliseconds (`msOf`). */
const epochMs = (v: Date | number | null | undefined): number | null =>
  v === null || v === undefined ? null : typeof v === 'number' ? v : v.getTime();

/** A timestamptz column as epoch milliseconds (an int8 for pg: parsing a Date per value was ~8 % of the performance list). */
export const msOf = (column: string, as = column.replace(/^\w+\./, '')) => `floor(extract(epoch FROM ${column}) * 1000)::int8 AS ${as}`;

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
    lastRunAt: epochMs(r.last_run_at),
    lastFailedAt: epochMs(r.last_failed_at),
    lastFlakyAt: epochMs(r.last_flaky_at),
    runs: Number(r.runs ?? 0),
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
export const percentilesOfRow = (r: any): Percentiles => ({
  p50: Number(r.p50),
  p90: Number(r.p90),
  p95: Number(r.p95),
  p99: Number(r.p99),
});

/** A test's identity from a row of `tests` joined with `files`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
export const testIdentityOfRow = (r: any): Omit<TestFigures, 'agg' | 'p'> => ({
  testId: r.test_id,
  title: r.title,
  titlePath: r.title_path,
  file: r.file,
  projectName: r.project_name,
  tags: r.tags,
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
export const testOfRow = (r: any): TestFigures => ({ ...testIdentityOfRow(r), agg: aggOf(r), p: percentilesOfRow(r) });

export const TEST_COLUMNS = `t.test_id, t.title, t.title_path, t.project_name, t.tags, f.file, w.executions, w.passed, w.failed, w.flaky,
  w.skipped, w.dur_sum, w.dur_min, w.dur_max, w.p50, w.p90, w.p95, w.p99, ${msOf('w.last_run_at')}, ${msOf('w.last_failed_at')},
  ${msOf('w.last_flaky_at')}`;

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
  const { rows } = await read(
    db,
    // The window rows first: the top `limit` by the figures, with every row tying the last (the title breaks those
    // ties); only they are joined with their tests and files (not every test of the window).
    `SELECT ${TEST_COLUMNS}
       FROM (SELECT w.* FROM test_windows w WHERE w.project_key = $1 AND w.window_days = $2 AND ${TOP[kind].where}
              ORDER BY ${TOP[kind].order} FETCH FIRST $3 ROWS WITH TIES) w
       JOIN tests t ON t.test_key = w.test_key JOIN files f ON f.file_key = t.file_key
      ORDER BY ${TOP[kind].order}, t.title COLLATE "C", t.test_id
      LIMIT $3`,
    [projectKey, window, limit],
  );
  return rows.map(testOfRow);
}

/** Totals and percentiles of the project's results in the window. */
export async function projectWindow(db: Queryable, projectKey: number, window: number): Promise<{ agg: Agg; p: Percentiles }> {
  const { rows } = await read(
    db,
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
  const { rows } = await read(
    db,
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
  // Results per day and runs per day in one statement (one round trip fewer per dashboard and summary).
  const { rows } = await read(
    db,
    `SELECT coalesce(p.day, r.day) AS day, p.executions, p.passed, p.failed, p.flaky, p.skipped, p.dur_sum, r.run_count
       FROM (SELECT day, ${SUMS} FROM project_days WHERE project_key = $1 AND day BETWEEN $2 AND $3 GROUP BY day) p
       FULL JOIN (SELECT day, count(*) AS run_count FROM runs
                   WHERE project_key = $1 AND folded_at IS NOT NULL AND day BETWEEN $2 AND $3 GROUP BY day) r ON r.day = p.day`,
    [projectKey, from, until],
  );
  return fillDays(
    from,
    until,
    rows.filter((r) => r.executions !== null),
    rows.filter((r) => r.run_count !== null).map((r) => ({ day: r.day, runs: r.run_count })),
  );
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

/** The counts and the duration sum of grouped daily rows. */
export const SUMS = `sum(executions) AS executions, sum(passed) AS passed, sum(failed) AS failed, sum(flaky) AS flaky,
  sum(skipped) AS skipped, sum(dur_sum) AS dur_sum`;
