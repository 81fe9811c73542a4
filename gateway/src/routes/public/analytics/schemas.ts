/**
 * Shapes of the analytics families (dashboard, filters, test-case-explorer, specs, analytics): TypeBox schemas and
 * the mapping from analytics.proto. Counts are integers, rates percentages with two decimals over the results
 * that ran (skipped excluded), durations integer milliseconds (averages with two decimals), dates ISO 8601.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import type {
  BreakdownRow,
  DayTrend,
  DurationPercentiles,
  OutcomeStats,
  RunStatusCounts,
  SpecRow,
  TestColumns,
  TestRow,
  Window,
} from '@assay/proto/assay/analytics/v1/analytics_pb';

// ---- the `days` rule of spec §4.1 --------------------------------------------------------------------------

export const WINDOW_DAYS = [7, 30, 90] as const;

/**
 * Spec §4.1: `days` is snapped to 7, 30 or 90 (the nearest; a tie goes to the longer window: 60 → 90); absent or
 * invalid (not a whole number ≥ 1, e.g. `abc`, `7d`, `1.5`, `0`, `-7`, a repeated key) → 30.
 */
export function snapDays(raw: unknown): 7 | 30 | 90 {
  if (typeof raw !== 'string' && typeof raw !== 'number') return 30;
  const s = String(raw).trim();
  if (!/^\d+$/.test(s)) return 30;
  const n = Number(s);
  if (!Number.isFinite(n) || n < 1) return 30;
  let best: 7 | 30 | 90 = 7;
  for (const w of WINDOW_DAYS) if (Math.abs(n - w) <= Math.abs(n - best)) best = w;
  return best;
}

export const DaysQuery = () => ({
  days: Type.Optional(
    // Any value is accepted (spec §4.1: invalid means 30), so the document must not call other values invalid.
    Type.Unsafe<number>({
      type: ['integer', 'string'],
      default: 30,
      examples: [...WINDOW_DAYS],
      description:
        'rolling window in days, ending today (UTC, today included). Any value is snapped to the nearest of 7, 30, 90 ' +
        '(a tie goes to the longer: 60 → 90); absent or invalid (not a whole number ≥ 1) means 30. `dateRange` presets are not supported here.',
    }),
  ),
});

/** preValidation hook: replaces `days` by its snapped value before the schema sees it. */
export async function snapDaysHook(request: FastifyRequest): Promise<void> {
  const q = request.query as Record<string, unknown>;
  q.days = snapDays(q.days);
}

// ---- schemas -----------------------------------------------------------------------------------------------

const Rates = {
  passRate: Type.Number({ description: 'passed / results that ran × 100 (two decimals; 0 when none ran)' }),
  failureRate: Type.Number({ description: 'failed / results that ran × 100' }),
  flakyRate: Type.Number({ description: 'flaky / results that ran × 100' }),
  avgDuration: Type.Number({ description: 'average duration of the results that ran, ms (two decimals)' }),
};

const Counts = {
  executions: Type.Integer({ description: 'results (one per test per run), skipped included' }),
  passed: Type.Integer({ description: 'outcome expected' }),
  failed: Type.Integer({ description: 'outcome unexpected (failed, timed out, interrupted; quarantined failures included)' }),
  flaky: Type.Integer({ description: 'failed, then passed on a retry (not also counted as passed)' }),
  skipped: Type.Integer(),
};

const Percentiles = {
  p50Duration: Type.Integer({ description: 'ms; percentiles are estimated within 2.5 %' }),
  p90Duration: Type.Integer(),
  p95Duration: Type.Integer(),
  p99Duration: Type.Integer(),
  minDuration: Type.Integer({ description: 'ms, exact' }),
  maxDuration: Type.Integer({ description: 'ms, exact' }),
};

const DateTimeOrNull = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const AnalyticsTestSchema = Type.Object(
  {
    testId: Type.String({ description: 'stable test identity: the `testId` of GET /test-cases/history' }),
    title: Type.String({ description: 'title path joined with " › "' }),
    titlePath: Type.Array(Type.String()),
    file: Type.String({ description: 'spec file' }),
    projectName: Type.String({ description: 'Playwright project (browser) name; may be empty' }),
    tags: Type.Array(Type.String(), { description: 'test tags of its latest result' }),
    ...Counts,
    ...Rates,
    ...Percentiles,
    lastRunAt: DateTimeOrNull,
    lastFailedAt: DateTimeOrNull,
    lastFlakyAt: DateTimeOrNull,
  },
  { $id: 'AnalyticsTest', title: 'AnalyticsTest', description: 'One automated test over the window' },
);

export const AnalyticsPerformanceSchema = Type.Object(
  {
    testId: Type.String({ description: 'stable test identity: the `testId` of GET /test-cases/history' }),
    title: Type.String({ description: 'title path joined with " › "' }),
    file: Type.String({ description: 'spec file' }),
    projectName: Type.String({ description: 'Playwright project (browser) name; may be empty' }),
    ...Counts,
    ...Rates,
    ...Percentiles,
    lastRunAt: DateTimeOrNull,
  },
  {
    $id: 'AnalyticsPerformance',
    title: 'AnalyticsPerformance',
    description:
      'Duration percentiles of one test merged with its failure statistics (a lean AnalyticsTest: one row per test of the project)',
  },
);

export const AnalyticsSpecSchema = Type.Object(
  {
    file: Type.String(),
    tests: Type.Integer({ description: 'distinct tests of the file with results in the window' }),
    ...Counts,
    ...Rates,
    ...Percentiles,
    lastRunAt: DateTimeOrNull,
  },
  { $id: 'AnalyticsSpec', title: 'AnalyticsSpec', description: 'One spec file over the window' },
);

export const AnalyticsDaySchema = Type.Object(
  { date: Type.String({ format: 'date', description: 'UTC day' }), runs: Type.Integer(), ...Counts, ...Rates },
  { $id: 'AnalyticsDay', title: 'AnalyticsDay', description: 'One UTC day; days without runs are present with zeros' },
);

export const AnalyticsBreakdownSchema = Type.Object(
  { name: Type.String({ description: 'environment, branch or tag ("" = none given)' }), runs: Type.Integer(), ...Counts, ...Rates },
  { $id: 'AnalyticsBreakdown', title: 'AnalyticsBreakdown' },
);

export const WindowFields = {
  days: Type.Integer({ description: 'the window used (after snapping)' }),
  from: Type.String({ format: 'date', description: 'first UTC day of the window' }),
  until: Type.String({ format: 'date', description: 'last UTC day of the window (today)' }),
};

export const RunCountsSchema = Type.Object({
  total: Type.Integer({ description: 'finished runs that started in the window' }),
  passed: Type.Integer(),
  failed: Type.Integer(),
  interrupted: Type.Integer(),
  incomplete: Type.Integer(),
});

export const TotalsSchema = Type.Object({ runs: Type.Integer(), ...Counts, ...Rates });

// ---- proto → JSON ------------------------------------------------------------------------------------------

const n = (v: bigint | number | undefined) => Number(v ?? 0);
const iso = (t?: Timestamp) => (t ? timestampDate(t).toISOString() : null);

export const countsOf = (s?: OutcomeStats) => ({
  executions: n(s?.executions),
  passed: n(s?.passed),
  failed: n(s?.failed),
  flaky: n(s?.flaky),
  skipped: n(s?.skipped),
});

export const ratesOf = (s?: OutcomeStats) => ({
  passRate: s?.passRate ?? 0,
  failureRate: s?.failureRate ?? 0,
  flakyRate: s?.flakyRate ?? 0,
  avgDuration: s?.avgDurationMs ?? 0,
});

export const percentilesOf = (d?: DurationPercentiles) => ({
  p50Duration: n(d?.p50Ms),
  p90Duration: n(d?.p90Ms),
  p95Duration: n(d?.p95Ms),
  p99Duration: n(d?.p99Ms),
  minDuration: n(d?.minMs),
  maxDuration: n(d?.maxMs),
});

export const testJson = (t: TestRow) => ({
  testId: t.testId,
  title: t.title,
  titlePath: t.titlePath,
  file: t.file,
  projectName: t.projectName,
  tags: t.tags,
  ...countsOf(t.stats),
  ...ratesOf(t.stats),
  ...percentilesOf(t.durations),
  lastRunAt: iso(t.lastRunAt),
  lastFailedAt: iso(t.lastFailedAt),
  lastFlakyAt: iso(t.lastFlakyAt),
});

export const specJson = (s: SpecRow) => ({
  file: s.file,
  tests: n(s.tests),
  ...countsOf(s.stats),
  ...ratesOf(s.stats),
  ...percentilesOf(s.durations),
  lastRunAt: iso(s.lastRunAt),
});

export const dayJson = (d: DayTrend) => ({ date: d.date, runs: n(d.runs), ...countsOf(d.stats), ...ratesOf(d.stats) });

export const breakdownJson = (b: BreakdownRow) => ({ name: b.name, runs: n(b.runs), ...countsOf(b.stats), ...ratesOf(b.stats) });

export const windowJson = (w?: Window) => ({ days: w?.days ?? 0, from: w?.fromDate ?? '', until: w?.untilDate ?? '' });

export const runCountsJson = (r?: RunStatusCounts) => ({
  total: n(r?.total),
  passed: n(r?.passed),
  failed: n(r?.failed),
  interrupted: n(r?.interrupted),
  incomplete: n(r?.incomplete),
});

/** Performance rows (AnalyticsPerformance) from the columnar form (TestColumns). */
export function performanceJsonFromColumns(c?: TestColumns) {
  if (!c) return [];
  const out = [];
  for (let i = 0; i < c.testId.length; i++) {
    const last = c.lastRunAtMs[i]!;
    out.push({
      testId: c.testId[i]!,
      title: c.title[i]!,
      file: c.file[i]!,
      projectName: c.projectName[i]!,
      executions: c.executions[i]!,
      passed: c.passed[i]!,
      failed: c.failed[i]!,
      flaky: c.flaky[i]!,
      skipped: c.skipped[i]!,
      passRate: c.passRate[i]!,
      failureRate: c.failureRate[i]!,
      flakyRate: c.flakyRate[i]!,
      avgDuration: c.avgDurationMs[i]!,
      p50Duration: c.p50Ms[i]!,
      p90Duration: c.p90Ms[i]!,
      p95Duration: c.p95Ms[i]!,
      p99Duration: c.p99Ms[i]!,
      minDuration: c.minMs[i]!,
      maxDuration: c.maxMs[i]!,
      lastRunAt: last > 0 ? new Date(last).toISOString() : null,
    });
  }
  return out;
}
