/**
 * Reading and writing rollup rows (the *_days and *_windows tables) as `Agg` accumulators. Writes replace whole
 * rows (the caller merged them in memory under the project lock): rows new to the table with COPY, the others in one
 * multi-row upsert per table.
 */
import { copyIn, copyNumber, CopyData, type PoolClient, type Queryable } from '@assay/db';
import type { Hist } from '../domain/histogram';
import { percentilesOf, type Percentiles } from '../domain/histogram';
import type { Agg } from '../domain/stats';

export type LastColumn = 'last_run_at' | 'last_failed_at' | 'last_flaky_at';

export interface TableDef {
  table: string;
  /** Integer key columns, project_key first. */
  keys: string[];
  last: LastColumn[];
  percentiles: boolean;
  /** tag_days: runs column, no histogram and no extremes. */
  tagRollup?: boolean;
}

export const TEST_DAYS: TableDef = {
  table: 'test_days',
  keys: ['project_key', 'day', 'test_key', 'branch_key', 'env_key', 'tagset_key'],
  last: ['last_run_at', 'last_failed_at', 'last_flaky_at'],
  percentiles: false,
};
export const FILE_DAYS: TableDef = {
  table: 'file_days',
  keys: ['project_key', 'day', 'file_key'],
  last: ['last_run_at'],
  percentiles: false,
};
export const PROJECT_DAYS: TableDef = {
  table: 'project_days',
  keys: ['project_key', 'day', 'branch_key', 'env_key'],
  last: [],
  percentiles: false,
};
export const TAG_DAYS: TableDef = {
  table: 'tag_days',
  keys: ['project_key', 'day', 'tag_key'],
  last: [],
  percentiles: false,
  tagRollup: true,
};
export const TEST_WINDOWS: TableDef = {
  table: 'test_windows',
  keys: ['project_key', 'window_days', 'test_key'],
  last: ['last_run_at', 'last_failed_at', 'last_flaky_at'],
  percentiles: true,
};
export const FILE_WINDOWS: TableDef = {
  table: 'file_windows',
  keys: ['project_key', 'window_days', 'file_key'],
  last: ['last_run_at'],
  percentiles: true,
};
export const PROJECT_WINDOWS: TableDef = { table: 'project_windows', keys: ['project_key', 'window_days'], last: [], percentiles: true };

export interface Row {
  key: number[];
  agg: Agg;
}

/**
 * Each column's value in a row, for both writers (`writeRows`' arrays and `insertRows`' COPY lines): a number (or
 * null) for every column but the histogram's two arrays. Times are epoch milliseconds; the percentiles come from the
 * row's histogram, worked out once a row.
 */
const NUMBER_OF: Record<string, (a: Agg, p: Percentiles | undefined) => number | null> = {
  runs: (a) => a.runs,
  executions: (a) => a.executions,
  passed: (a) => a.passed,
  failed: (a) => a.failed,
  flaky: (a) => a.flaky,
  skipped: (a) => a.skipped,
  dur_sum: (a) => a.durSum,
  dur_min: (a) => a.durMin,
  dur_max: (a) => a.durMax,
  last_run_at: (a) => a.lastRunAt,
  last_failed_at: (a) => a.lastFailedAt,
  last_flaky_at: (a) => a.lastFlakyAt,
  p50: (_, p) => p!.p50,
  p90: (_, p) => p!.p90,
  p95: (_, p) => p!.p95,
  p99: (_, p) => p!.p99,
};
const HIST_OF: Record<string, (h: Hist) => number[]> = { h_idx: (h) => h.idx, h_cnt: (h) => h.cnt };
const isTime = (col: string) => col.startsWith('last_');

export const keyString = (key: number[]) => key.join(':');

/** A Postgres array literal of integers. */
const intArrayLiteral = (a: number[]) => `{${a.join(',')}}`;

/**
 * Array parameters as literals built here (numbers, null → NULL): node-postgres would escape every element with two
 * regular expressions, which was ~8 % of a rebuild's time in analytics.
 */
export function numbersParam(a: readonly (number | null | undefined)[]): string {
  let s = '{';
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    s += (i > 0 ? ',' : '') + (v === null || v === undefined ? 'NULL' : String(v));
  }
  return `${s}}`;
}

/** A text[] parameter of integer-array literals (no quote or backslash in them: each is only quoted). */
const intArraysParam = (a: number[][]) => `{${a.map((x) => `"${intArrayLiteral(x)}"`).join(',')}}`;

/** A Postgres array literal of strings (every element quoted and escaped). */
export function textArrayLiteral(a: string[]): string {
  return `{${a.map((s) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

const time = (v: Date | number | null | undefined) => (v === null || v === undefined ? null : typeof v === 'number' ? v : v.getTime());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
export function aggOfRow(def: TableDef, r: any): Agg {
  const hist: Hist = def.tagRollup ? { idx: [], cnt: [] } : { idx: r.h_idx, cnt: r.h_cnt };
  return {
    executions: Number(r.executions),
    passed: Number(r.passed),
    failed: Number(r.failed),
    flaky: Number(r.flaky),
    skipped: Number(r.skipped),
    durSum: Number(r.dur_sum),
    durMin: def.tagRollup || r.dur_min === null ? null : Number(r.dur_min),
    durMax: def.tagRollup || r.dur_max === null ? null : Number(r.dur_max),
    hist,
    lastRunAt: def.last.includes('last_run_at') ? time(r.last_run_at) : null,
    lastFailedAt: def.last.includes('last_failed_at') ? time(r.last_failed_at) : null,
    lastFlakyAt: def.last.includes('last_flaky_at') ? time(r.last_flaky_at) : null,
    runs: def.tagRollup ? Number(r.runs) : 0,
  };
}

function columns(def: TableDef): string[] {
  const cols = ['executions', 'passed', 'failed', 'flaky', 'skipped', 'dur_sum'];
  if (def.tagRollup) return ['runs', ...cols];
  return [...cols, 'dur_min', 'dur_max', 'h_idx', 'h_cnt', ...def.last, ...(def.percentiles ? ['p50', 'p90', 'p95', 'p99'] : [])];
}

/**
 * Existing rows of `def` whose key columns (after project_key) take one of the given values each: a superset
 * of the wanted keys; pick by `keyString`.
 */
export async function readRows(c: Queryable, def: TableDef, projectKey: number, values: number[][]): Promise<Map<string, Agg>> {
  const conds = def.keys.slice(1).map((k, i) => `${k} = ANY($${i + 2}::int[])`);
  // Timestamps as epoch ms (int8): a Date parsed per value was a visible part of a fold's time.
  const cols = columns(def).map((col) => (col.startsWith('last_') ? `floor(extract(epoch FROM ${col}) * 1000)::int8 AS ${col}` : col));
  const sql = `SELECT ${[...def.keys, ...cols].join(', ')} FROM ${def.table} WHERE project_key = $1${conds.map((c) => ` AND ${c}`).join('')}`;
  const { rows } = await c.query(sql, [projectKey, ...values.map(numbersParam)]);
  const out = new Map<string, Agg>();
  for (const r of rows) out.set(keyString(def.keys.map((k) => Number(r[k]))), aggOfRow(def, r));
  return out;
}

/**
 * The existing rows of `def` with exactly these keys (project_key first, as in `def.keys`), by `keyString`: one probe
 * of the primary key each. Asking each key column for any of its values instead (`readRows`) made Postgres walk every
 * combination of a merge's days and tests, and answer rows of those days that were not asked for: in a rebuild of
 * 1,000,000 results the daily test rows' reads took 9.4–10.5 s, and 2.6–2.8 s this way.
 */
export async function readRowsByKey(c: Queryable, def: TableDef, projectKey: number, keys: number[][]): Promise<Map<string, Agg>> {
  const out = new Map<string, Agg>();
  if (keys.length === 0) return out;
  const rest = def.keys.slice(1);
  const cols = columns(def).map((col) =>
    col.startsWith('last_') ? `floor(extract(epoch FROM t.${col}) * 1000)::int8 AS ${col}` : `t.${col}`,
  );
  const sql = `SELECT ${[...def.keys.map((k) => `t.${k}`), ...cols].join(', ')}
       FROM unnest(${rest.map((_, i) => `$${i + 2}::int[]`).join(', ')}) AS k(${rest.join(', ')})
       JOIN ${def.table} t ON t.project_key = $1${rest.map((k) => ` AND t.${k} = k.${k}`).join('')}`;
  const { rows } = await c.query(sql, [projectKey, ...rest.map((_, i) => numbersParam(keys.map((key) => key[i + 1])))]);
  for (const r of rows) out.set(keyString(def.keys.map((k) => Number(r[k]))), aggOfRow(def, r));
  return out;
}

const copyTime = (ms: number | null) => (ms === null ? '\\N' : new Date(ms).toISOString());
/** Rows turned into COPY's bytes at once (`CopyData.seal`): by the thousand, not one string of a whole merge. */
const COPY_LINES = 1000;

/**
 * Inserts rows new to the table with COPY (full rows, as `writeRows` writes them). The caller holds the project's lock
 * and read the table for these keys, so none exists: a key that does fails the statement, and the fold with it. COPY
 * costs Postgres less than the upsert's statement per row (the daily test rows of a rebuild of 1,000,000 results are
 * almost all new).
 */
export async function insertRows(c: PoolClient, def: TableDef, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const cols = columns(def);
  const values = cols.map((col): ((a: Agg, p: Percentiles | undefined) => string) => {
    const hist = HIST_OF[col];
    if (hist) return (a) => intArrayLiteral(hist(a.hist));
    const get = NUMBER_OF[col]!;
    return isTime(col) ? (a) => copyTime(get(a, undefined)) : (a, p) => copyNumber(get(a, p));
  });
  const data = new CopyData();
  rows.forEach((r, i) => {
    const p = def.percentiles ? percentilesOf(r.agg.hist) : undefined;
    let line = r.key.join('\t');
    for (const value of values) line += `\t${value(r.agg, p)}`;
    data.add(line);
    if ((i + 1) % COPY_LINES === 0) data.seal();
  });
  await copyIn(c, `COPY ${def.table} (${[...def.keys, ...cols].join(', ')}) FROM STDIN`, data);
}

/** Inserts or replaces rows (full rows: counts, extremes, histogram, timestamps, percentiles). */
export async function writeRows(c: PoolClient, def: TableDef, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const cols = columns(def);
  const params: string[] = [];
  const types: string[] = [];
  const selects: string[] = [];
  const names: string[] = [];
  const push = (name: string, type: string, values: (number | null)[] | string, select = `x.${name}`) => {
    params.push(typeof values === 'string' ? values : numbersParam(values));
    types.push(`$${params.length}::${type}[]`);
    names.push(name);
    selects.push(select);
  };
  def.keys.forEach((k, i) =>
    push(
      k,
      'int8',
      rows.map((r) => r.key[i]!),
    ),
  );
  const p = def.percentiles ? rows.map((r) => percentilesOf(r.agg.hist)) : [];
  for (const col of cols) {
    const hist = HIST_OF[col];
    if (hist) {
      push(col, 'text', intArraysParam(rows.map((r) => hist(r.agg.hist))), `x.${col}::int[]`);
      continue;
    }
    const get = NUMBER_OF[col]!;
    const values = rows.map((r, i) => get(r.agg, p[i]));
    if (isTime(col)) push(col, 'float8', values, `to_timestamp(x.${col} / 1000.0)`);
    else push(col, 'int8', values);
  }
  const sql = `INSERT INTO ${def.table} (${names.join(', ')})
    SELECT ${selects.join(', ')} FROM unnest(${types.join(', ')}) AS x(${names.join(', ')})
    ON CONFLICT (${def.keys.join(', ')}) DO UPDATE SET ${cols.map((col) => `${col} = EXCLUDED.${col}`).join(', ')}`;
  await c.query(sql, params);
}

/** Adds counts (tag_days: no histogram, no extremes) with one upsert. */
export async function addTagRows(c: PoolClient, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const cols = ['runs', 'executions', 'passed', 'failed', 'flaky', 'skipped', 'dur_sum'] as const;
  const field = (r: Row, col: (typeof cols)[number]) => (col === 'dur_sum' ? r.agg.durSum : r.agg[col]);
  const params = [
    rows.map((r) => r.key[0]!),
    rows.map((r) => r.key[1]!),
    rows.map((r) => r.key[2]!),
    ...cols.map((col) => rows.map((r) => field(r, col))),
  ].map(numbersParam);
  const names = ['project_key', 'day', 'tag_key', ...cols];
  await c.query(
    `INSERT INTO tag_days (${names.join(', ')})
     SELECT * FROM unnest(${names.map((_, i) => `$${i + 1}::int8[]`).join(', ')})
     ON CONFLICT (project_key, day, tag_key) DO UPDATE SET ${cols.map((col) => `${col} = tag_days.${col} + EXCLUDED.${col}`).join(', ')}`,
    params,
  );
}

/** Deletes rows by full key. */
export async function deleteRows(c: PoolClient, def: TableDef, keys: number[][]): Promise<void> {
  if (keys.length === 0) return;
  const cols = def.keys;
  await c.query(
    `DELETE FROM ${def.table} t USING unnest(${cols.map((_, i) => `$${i + 1}::int8[]`).join(', ')}) AS x(${cols.join(', ')})
     WHERE ${cols.map((k) => `t.${k} = x.${k}`).join(' AND ')}`,
    cols.map((_, i) => numbersParam(keys.map((k) => k[i]!))),
  );
}
