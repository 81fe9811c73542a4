/**
 * The `analytics` family (spec §4.2, CONTRACT §2): GET /analytics/summary and GET /analytics/test-cases/performance,
 * figures of the read model over a rolling window of `days` (./figures.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import type { GetSummaryResponse, TestColumns } from '@assay/proto/assay/analytics/v1/analytics_pb';
import {
  AnalyticsBreakdownSchema,
  AnalyticsDaySchema,
  AnalyticsTestSchema,
  breakdownJson,
  Counts,
  countsOf,
  DateTimeOrNull,
  DaysQuery,
  dayJson,
  Percentiles,
  percentilesOf,
  Rates,
  ratesOf,
  RunCountsSchema,
  runCountsJson,
  testJson,
  WindowFields,
} from './figures';

/** Only `days` (both routes). */
export const WindowQuery = Type.Object(DaysQuery());

export const SummarySchema = Type.Object({
  ...WindowFields,
  totals: Type.Object({
    runs: Type.Integer({ description: 'finished runs that started in the window' }),
    executions: Type.Integer(),
    passed: Type.Integer(),
    failed: Type.Integer(),
    flaky: Type.Integer(),
    skipped: Type.Integer(),
  }),
  runsByStatus: RunCountsSchema,
  passRate: Type.Number(),
  failureRate: Type.Number(),
  flakyRate: Type.Number(),
  avgDuration: Type.Number({ description: 'ms' }),
  durationPercentiles: Type.Object({
    p50: Type.Integer(),
    p90: Type.Integer(),
    p95: Type.Integer(),
    p99: Type.Integer(),
    min: Type.Integer(),
    max: Type.Integer(),
  }),
  topFailing: Type.Array(Type.Ref(AnalyticsTestSchema), { description: 'top 10 by failures' }),
  topFlaky: Type.Array(Type.Ref(AnalyticsTestSchema), { description: 'top 10 by flaky results' }),
  slowest: Type.Array(Type.Ref(AnalyticsTestSchema), { description: 'top 10 by p95 duration' }),
  byTag: Type.Array(Type.Ref(AnalyticsBreakdownSchema), { description: 'test and run tags; most runs first' }),
  byEnvironment: Type.Array(Type.Ref(AnalyticsBreakdownSchema)),
  byBranch: Type.Array(Type.Ref(AnalyticsBreakdownSchema)),
  trend: Type.Array(Type.Ref(AnalyticsDaySchema), { description: 'one entry per day, oldest first' }),
});
export type SummaryJson = Static<typeof SummarySchema>;

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
export type AnalyticsPerformanceJson = Static<typeof AnalyticsPerformanceSchema>;

/** `days` is the window asked for, used when the answer carries none. */
export function summaryToJson(s: GetSummaryResponse, days: number): SummaryJson {
  const p = percentilesOf(s.durations);
  return {
    days: s.window?.days ?? days,
    from: s.window?.fromDate ?? '',
    until: s.window?.untilDate ?? '',
    totals: { runs: Number(s.runs?.total ?? 0), ...countsOf(s.stats) },
    runsByStatus: runCountsJson(s.runs),
    ...ratesOf(s.stats),
    durationPercentiles: {
      p50: p.p50Duration,
      p90: p.p90Duration,
      p95: p.p95Duration,
      p99: p.p99Duration,
      min: p.minDuration,
      max: p.maxDuration,
    },
    topFailing: s.topFailing.map(testJson),
    topFlaky: s.topFlaky.map(testJson),
    slowest: s.slowest.map(testJson),
    byTag: s.byTag.map(breakdownJson),
    byEnvironment: s.byEnvironment.map(breakdownJson),
    byBranch: s.byBranch.map(breakdownJson),
    trend: s.trend.map(dayJson),
  };
}

/** Performance rows (AnalyticsPerformance) from the columnar form (TestColumns). */
export function performanceJsonFromColumns(c?: TestColumns): AnalyticsPerformanceJson[] {
  if (!c) return [];
  const out: AnalyticsPerformanceJson[] = [];
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
