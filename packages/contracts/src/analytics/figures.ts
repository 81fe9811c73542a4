/**
 * What every analytics family (analytics, dashboard, filters, specs, test-case-explorer) shares: the `days` rule of
 * spec §4.1, the figures of a test, a day and a breakdown as TypeBox schemas, and their mapping from
 * analytics.proto. Counts are integers, rates percentages with two decimals over the results that ran (skipped
 * excluded), durations integer milliseconds (averages with two decimals), dates ISO 8601.
 */
import { Type, type Static } from '@sinclair/typebox';
import type {
  BreakdownRow,
  DayTrend,
  DurationPercentiles,
  OutcomeStats,
  RunStatusCounts,
  TestRow,
} from '@assay/proto/assay/analytics/v1/analytics_pb';
import { iso } from '../common/json';
import { DEFAULT_WINDOW_DAYS, WINDOW_DAYS, type WindowDays } from './values';

// ---- the `days` rule of spec §4.1 --------------------------------------------------------------------------

/**
 * `days` is snapped to 7, 30 or 90 (the nearest; a tie goes to the longer window: 60 → 90); absent or invalid
 * (not a whole number ≥ 1, e.g. `abc`, `7d`, `1.5`, `0`, `-7`, a repeated key) → 30.
 */
export function snapDays(raw: unknown): WindowDays {
  if (typeof raw !== 'string' && typeof raw !== 'number') return DEFAULT_WINDOW_DAYS;
  const s = String(raw).trim();
  if (!/^\d+$/.test(s)) return DEFAULT_WINDOW_DAYS;
  const n = Number(s);
  if (!Number.isFinite(n) || n < 1) return DEFAULT_WINDOW_DAYS;
  let best: WindowDays = WINDOW_DAYS[0];
  for (const w of WINDOW_DAYS) if (Math.abs(n - w) <= Math.abs(n - best)) best = w;
  return best;
}

/** A preValidation hook of the routes with `days`: replaces it by its snapped value before the schema sees it. */
export async function snapDaysHook(request: { query: { days?: unknown } }): Promise<void> {
  request.query.days = snapDays(request.query.days);
}

export const DaysQuery = () => ({
  days: Type.Optional(
    // Any value is accepted (spec §4.1: invalid means 30), so the document must not call other values invalid.
    Type.Unsafe<number>({
      type: ['integer', 'string'],
      default: DEFAULT_WINDOW_DAYS,
      examples: [...WINDOW_DAYS],
      description:
        'rolling window in days, ending today (UTC, today included). Any value is snapped to the nearest of 7, 30, 90 ' +
        '(a tie goes to the longer: 60 → 90); absent or invalid (not a whole number ≥ 1) means 30. `dateRange` presets are not supported here.',
    }),
  ),
});

/** The window a validated query asks for (the hook has snapped it; the types cannot know it). */
export const daysOf = (q: { days?: number }): number => q.days ?? DEFAULT_WINDOW_DAYS;

// ---- schemas -----------------------------------------------------------------------------------------------

export const Rates = {
  passRate: Type.Number({ description: 'passed / results that ran × 100 (two decimals; 0 when none ran)' }),
  failureRate: Type.Number({ description: 'failed / results that ran × 100' }),
  flakyRate: Type.Number({ description: 'flaky / results that ran × 100' }),
  avgDuration: Type.Number({ description: 'average duration of the results that ran, ms (two decimals)' }),
};

export const Counts = {
  executions: Type.Integer({ description: 'results (one per test per run), skipped included' }),
  passed: Type.Integer({ description: 'outcome expected' }),
  failed: Type.Integer({ description: 'outcome unexpected (failed, timed out, interrupted; quarantined failures included)' }),
  flaky: Type.Integer({ description: 'failed, then passed on a retry (not also counted as passed)' }),
  skipped: Type.Integer(),
};

export const Percentiles = {
  p50Duration: Type.Integer({ description: 'ms; percentiles are estimated within 2.5 %' }),
  p90Duration: Type.Integer(),
  p95Duration: Type.Integer(),
  p99Duration: Type.Integer(),
  minDuration: Type.Integer({ description: 'ms, exact' }),
  maxDuration: Type.Integer({ description: 'ms, exact' }),
};

export const DateTimeOrNull = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

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
export type AnalyticsTestJson = Static<typeof AnalyticsTestSchema>;

export const AnalyticsDaySchema = Type.Object(
  { date: Type.String({ format: 'date', description: 'UTC day' }), runs: Type.Integer(), ...Counts, ...Rates },
  { $id: 'AnalyticsDay', title: 'AnalyticsDay', description: 'One UTC day; days without runs are present with zeros' },
);
export type AnalyticsDayJson = Static<typeof AnalyticsDaySchema>;

export const AnalyticsBreakdownSchema = Type.Object(
  { name: Type.String({ description: 'environment, branch or tag ("" = none given)' }), runs: Type.Integer(), ...Counts, ...Rates },
  { $id: 'AnalyticsBreakdown', title: 'AnalyticsBreakdown' },
);
export type AnalyticsBreakdownJson = Static<typeof AnalyticsBreakdownSchema>;

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

// ---- proto → JSON ------------------------------------------------------------------------------------------

const n = (v: bigint | number | undefined) => Number(v ?? 0);

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

export const testJson = (t: TestRow): AnalyticsTestJson => ({
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

export const dayJson = (d: DayTrend): AnalyticsDayJson => ({ date: d.date, runs: n(d.runs), ...countsOf(d.stats), ...ratesOf(d.stats) });

export const breakdownJson = (b: BreakdownRow): AnalyticsBreakdownJson => ({
  name: b.name,
  runs: n(b.runs),
  ...countsOf(b.stats),
  ...ratesOf(b.stats),
});

export const runCountsJson = (r?: RunStatusCounts): Static<typeof RunCountsSchema> => ({
  total: n(r?.total),
  passed: n(r?.passed),
  failed: n(r?.failed),
  interrupted: n(r?.interrupted),
  incomplete: n(r?.incomplete),
});
