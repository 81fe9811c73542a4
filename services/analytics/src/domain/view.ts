/** Read-model figures → analytics.proto messages (one mapping for every RPC). */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type {
  BreakdownRowSchema,
  DayTrendSchema,
  DurationPercentilesSchema,
  OutcomeStatsSchema,
  RunStatusCountsSchema,
  SpecRowSchema,
  TestColumnsSchema,
  TestRowSchema,
  WindowSchema,
} from '@assay/proto/assay/analytics/v1/analytics_pb';
import { dateOf, dayStart } from './days';
import type { Percentiles } from './histogram';
import { avgDuration, rate, ranOf, type Agg } from './stats';
import type { SpecFigures } from '../store/specs';
import type { BreakdownFigures, DayFigures, RunCounts, TestFigures } from '../store/windows';

const ts = (ms: number | null) => (ms === null ? undefined : timestampFromDate(new Date(ms)));

export function windowOf(from: number, until: number): MessageInitShape<typeof WindowSchema> {
  return {
    days: until - from + 1,
    fromDate: dateOf(from),
    untilDate: dateOf(until),
    from: timestampFromDate(dayStart(from)),
    until: timestampFromDate(dayStart(until + 1)),
  };
}

export function outcomeStats(a: Agg): MessageInitShape<typeof OutcomeStatsSchema> {
  const ran = ranOf(a);
  return {
    executions: BigInt(a.executions),
    passed: BigInt(a.passed),
    failed: BigInt(a.failed),
    flaky: BigInt(a.flaky),
    skipped: BigInt(a.skipped),
    passRate: rate(a.passed, ran),
    failureRate: rate(a.failed, ran),
    flakyRate: rate(a.flaky, ran),
    avgDurationMs: avgDuration(a.durSum, ran),
    totalDurationMs: BigInt(a.durSum),
  };
}

export function durations(a: Agg, p: Percentiles): MessageInitShape<typeof DurationPercentilesSchema> {
  return {
    p50Ms: BigInt(p.p50),
    p90Ms: BigInt(p.p90),
    p95Ms: BigInt(p.p95),
    p99Ms: BigInt(p.p99),
    minMs: BigInt(a.durMin ?? 0),
    maxMs: BigInt(a.durMax ?? 0),
  };
}

export function testRow(t: TestFigures): MessageInitShape<typeof TestRowSchema> {
  return {
    testId: t.testId,
    title: t.title,
    titlePath: t.titlePath,
    file: t.file,
    projectName: t.projectName,
    stats: outcomeStats(t.agg),
    durations: durations(t.agg, t.p),
    lastRunAt: ts(t.agg.lastRunAt),
    lastFailedAt: ts(t.agg.lastFailedAt),
    lastFlakyAt: ts(t.agg.lastFlakyAt),
    tags: t.tags,
  };
}

export function specRow(s: SpecFigures): MessageInitShape<typeof SpecRowSchema> {
  return {
    file: s.file,
    tests: BigInt(s.tests),
    stats: outcomeStats(s.agg),
    durations: durations(s.agg, s.p),
    lastRunAt: ts(s.agg.lastRunAt),
  };
}

export const dayTrend = (d: DayFigures): MessageInitShape<typeof DayTrendSchema> => ({
  date: dateOf(d.day),
  runs: BigInt(d.runs),
  stats: outcomeStats(d.agg),
});

export const breakdownRow = (b: BreakdownFigures): MessageInitShape<typeof BreakdownRowSchema> => ({
  name: b.name,
  runs: BigInt(b.runs),
  stats: outcomeStats(b.agg),
});

export const runCounts = (r: RunCounts): MessageInitShape<typeof RunStatusCountsSchema> => ({
  total: BigInt(r.total),
  passed: BigInt(r.passed),
  failed: BigInt(r.failed),
  interrupted: BigInt(r.interrupted),
  incomplete: BigInt(r.incomplete),
  running: BigInt(r.running),
});

/** Many tests as parallel arrays (TestColumns): the same figures as `testRow`, cheap to encode. */
export function testColumns(tests: TestFigures[]): MessageInitShape<typeof TestColumnsSchema> {
  const c = {
    testId: [] as string[],
    title: [] as string[],
    file: [] as string[],
    projectName: [] as string[],
    titlePathLengths: [] as number[],
    titleParts: [] as string[],
    tagCounts: [] as number[],
    tags: [] as string[],
    executions: [] as number[],
    passed: [] as number[],
    failed: [] as number[],
    flaky: [] as number[],
    skipped: [] as number[],
    passRate: [] as number[],
    failureRate: [] as number[],
    flakyRate: [] as number[],
    avgDurationMs: [] as number[],
    p50Ms: [] as number[],
    p90Ms: [] as number[],
    p95Ms: [] as number[],
    p99Ms: [] as number[],
    minMs: [] as number[],
    maxMs: [] as number[],
    lastRunAtMs: [] as number[],
    lastFailedAtMs: [] as number[],
    lastFlakyAtMs: [] as number[],
  };
  for (const t of tests) {
    const a = t.agg;
    const ran = ranOf(a);
    c.testId.push(t.testId);
    c.title.push(t.title);
    c.file.push(t.file);
    c.projectName.push(t.projectName);
    c.titlePathLengths.push(t.titlePath.length);
    c.titleParts.push(...t.titlePath);
    c.tagCounts.push(t.tags.length);
    c.tags.push(...t.tags);
    c.executions.push(a.executions);
    c.passed.push(a.passed);
    c.failed.push(a.failed);
    c.flaky.push(a.flaky);
    c.skipped.push(a.skipped);
    c.passRate.push(rate(a.passed, ran));
    c.failureRate.push(rate(a.failed, ran));
    c.flakyRate.push(rate(a.flaky, ran));
    c.avgDurationMs.push(avgDuration(a.durSum, ran));
    c.p50Ms.push(t.p.p50);
    c.p90Ms.push(t.p.p90);
    c.p95Ms.push(t.p.p95);
    c.p99Ms.push(t.p.p99);
    c.minMs.push(a.durMin ?? 0);
    c.maxMs.push(a.durMax ?? 0);
    c.lastRunAtMs.push(a.lastRunAt ?? 0);
    c.lastFailedAtMs.push(a.lastFailedAt ?? 0);
    c.lastFlakyAtMs.push(a.lastFlakyAt ?? 0);
  }
  return c;
}
