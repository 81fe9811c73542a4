/**
 * Report data over any window of whole days with optional branch / environment / tags filters, from the daily
 * rollups (per test, per branch, environment and tag set) and the runs. A handful of grouped scans; the
 * percentiles come from the merged histograms.
 */
import type { Queryable } from '@assay/db';
import { percentilesOf, sumHists, type Hist } from '../domain/histogram';
import { addAgg, emptyAgg, ranOf, type Agg } from '../domain/stats';
import {
  aggOf,
  SUMS,
  testIdentityOfRow,
  emptyRunCounts,
  fillDays,
  mergeBreakdown,
  type BreakdownFigures,
  type DayFigures,
  type RunCounts,
  type TestFigures,
} from './windows';

export interface ReportFilters {
  branch?: string;
  environment?: string;
  tags?: string[];
}

export interface ReportFigures {
  runs: RunCounts;
  totals: Agg;
  tests: number;
  specFiles: number;
  trend: DayFigures[];
  topFailing: TestFigures[];
  topFlaky: TestFigures[];
  slowest: TestFigures[];
  byEnvironment: BreakdownFigures[];
  byBranch: BreakdownFigures[];
  byTag: BreakdownFigures[];
}

const cmpTitle = (a: TestFigures, b: TestFigures) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.testId < b.testId ? -1 : 1);

export async function reportFigures(
  db: Queryable,
  projectKey: number,
  from: number,
  until: number,
  f: ReportFilters,
  topLimit: number,
): Promise<ReportFigures> {
  // ---- filters → conditions on test_days (td) and runs (r)
  const args: unknown[] = [projectKey, from, until];
  const td: string[] = ['td.project_key = $1', 'td.day BETWEEN $2 AND $3'];
  const rn: string[] = ['r.project_key = $1', 'r.day BETWEEN $2 AND $3', 'r.folded_at IS NOT NULL'];
  if (f.branch !== undefined) {
    args.push(f.branch);
    const i = args.length;
    td.push(`td.branch_key = (SELECT dim_key FROM dims WHERE project_key = $1 AND kind = 'branch' AND value = $${i})`);
    rn.push(`r.branch = $${i}`);
  }
  if (f.environment !== undefined) {
    args.push(f.environment);
    const i = args.length;
    td.push(`td.env_key = (SELECT dim_key FROM dims WHERE project_key = $1 AND kind = 'environment' AND value = $${i})`);
    rn.push(`r.environment = $${i}`);
  }
  if (f.tags && f.tags.length > 0) {
    args.push(f.tags);
    const i = args.length;
    td.push(`td.tagset_key IN (SELECT tagset_key FROM tagsets WHERE project_key = $1 AND tags && $${i}::text[])`);
    rn.push(`r.all_tags && $${i}::text[]`);
  }
  const tdWhere = td.join(' AND ');
  const rWhere = rn.join(' AND ');

  const [tests, hists, days, envs, branches, tags, runStatus, runDays, runEnvs, runBranches, runTags] = await Promise.all([
    db.query(
      `SELECT td.test_key, ${SUMS}, min(dur_min) AS dur_min, max(dur_max) AS dur_max, max(last_run_at) AS last_run_at,
              max(last_failed_at) AS last_failed_at, max(last_flaky_at) AS last_flaky_at
         FROM test_days td WHERE ${tdWhere} GROUP BY td.test_key`,
      args,
    ),
    db.query(
      `SELECT td.test_key, u.i, sum(u.c) AS c FROM test_days td, unnest(td.h_idx, td.h_cnt) AS u(i, c)
        WHERE ${tdWhere} GROUP BY td.test_key, u.i ORDER BY td.test_key, u.i`,
      args,
    ),
    db.query(`SELECT td.day, ${SUMS} FROM test_days td WHERE ${tdWhere} GROUP BY td.day`, args),
    db.query(
      `SELECT d.value AS name, ${SUMS} FROM test_days td JOIN dims d ON d.dim_key = td.env_key WHERE ${tdWhere} GROUP BY d.value`,
      args,
    ),
    db.query(
      `SELECT d.value AS name, ${SUMS} FROM test_days td JOIN dims d ON d.dim_key = td.branch_key WHERE ${tdWhere} GROUP BY d.value`,
      args,
    ),
    db.query(
      `SELECT tag AS name, ${SUMS} FROM test_days td JOIN tagsets s ON s.tagset_key = td.tagset_key, unnest(s.tags) AS tag
        WHERE ${tdWhere} GROUP BY tag`,
      args,
    ),
    db.query(`SELECT r.status, count(*) AS n FROM runs r WHERE ${rWhere} GROUP BY r.status`, args),
    db.query(`SELECT r.day, count(*) AS runs FROM runs r WHERE ${rWhere} GROUP BY r.day`, args),
    db.query(`SELECT r.environment AS name, count(*) AS runs FROM runs r WHERE ${rWhere} GROUP BY r.environment`, args),
    db.query(`SELECT r.branch AS name, count(*) AS runs FROM runs r WHERE ${rWhere} GROUP BY r.branch`, args),
    db.query(`SELECT tag AS name, count(*) AS runs FROM runs r, unnest(r.all_tags) AS tag WHERE ${rWhere} GROUP BY tag`, args),
  ]);

  // ---- per test: counts, then histograms → percentiles
  const byTest = new Map<number, Agg>();
  for (const r of tests.rows) byTest.set(Number(r.test_key), aggOf(r));
  const histOf = new Map<number, Hist>();
  for (const r of hists.rows) {
    const k = Number(r.test_key);
    let h = histOf.get(k);
    if (!h) histOf.set(k, (h = { idx: [], cnt: [] }));
    h.idx.push(Number(r.i));
    h.cnt.push(Number(r.c));
  }
  const totals = emptyAgg();
  for (const [k, a] of byTest) {
    a.hist = histOf.get(k) ?? { idx: [], cnt: [] };
    addAgg(totals, { ...a, hist: { idx: [], cnt: [] } });
  }
  totals.hist = sumHists(histOf.values());

  // ---- top lists (ties by title, then test id: every test's identity is needed to rank them)
  const ids = new Map<number, Omit<TestFigures, 'agg' | 'p'>>();
  if (byTest.size > 0) {
    const { rows } = await db.query(
      `SELECT t.test_key, t.test_id, t.title, t.title_path, t.project_name, t.tags, f.file
         FROM tests t JOIN files f ON f.file_key = t.file_key WHERE t.test_key = ANY($1::int[])`,
      [[...byTest.keys()]],
    );
    for (const r of rows) ids.set(Number(r.test_key), testIdentityOfRow(r));
  }
  const all: TestFigures[] = [...byTest.entries()].map(([k, a]) => ({ ...ids.get(k)!, agg: a, p: percentilesOf(a.hist) }));
  const top = (keep: (t: TestFigures) => boolean, order: (x: TestFigures, y: TestFigures) => number) =>
    all
      .filter(keep)
      .sort((x, y) => order(x, y) || cmpTitle(x, y))
      .slice(0, topLimit);
  const topFailing = top(
    (t) => t.agg.failed > 0,
    (x, y) => y.agg.failed - x.agg.failed || y.agg.failed / ranOf(y.agg) - x.agg.failed / ranOf(x.agg),
  );
  const topFlaky = top(
    (t) => t.agg.flaky > 0,
    (x, y) => y.agg.flaky - x.agg.flaky || y.agg.flaky / ranOf(y.agg) - x.agg.flaky / ranOf(x.agg),
  );
  const slowest = top(
    (t) => ranOf(t.agg) > 0,
    (x, y) => y.p.p95 - x.p.p95 || y.agg.durSum / ranOf(y.agg) - x.agg.durSum / ranOf(x.agg),
  );

  // ---- files with results
  let specFiles = 0;
  if (byTest.size > 0) {
    const { rows } = await db.query(`SELECT count(DISTINCT file_key) AS n FROM tests WHERE test_key = ANY($1::int[])`, [
      [...byTest.keys()],
    ]);
    specFiles = Number(rows[0].n);
  }

  const runs = emptyRunCounts();
  for (const r of runStatus.rows) {
    const n = Number(r.n);
    runs.total += n;
    if (r.status in runs && r.status !== 'total') runs[r.status as keyof RunCounts] += n;
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg rows
  const named = (rows: any[]) => new Map(rows.map((r) => [r.name as string, aggOf(r)]));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg rows
  const counted = (rows: any[]) => new Map(rows.map((r) => [r.name as string, Number(r.runs)]));
  return {
    runs,
    totals,
    tests: byTest.size,
    specFiles,
    trend: fillDays(from, until, days.rows, runDays.rows),
    topFailing,
    topFlaky,
    slowest,
    byEnvironment: mergeBreakdown(named(envs.rows), counted(runEnvs.rows)),
    byBranch: mergeBreakdown(named(branches.rows), counted(runBranches.rows)),
    byTag: mergeBreakdown(named(tags.rows), counted(runTags.rows)),
  };
}
