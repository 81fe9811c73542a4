/**
 * What one report shows, as plain numbers and strings: built from the analytics and runs answers
 * (`collect.ts`), drawn by `render/`. Keeping the renderer on this shape (not on protobuf messages) lets it
 * be tested with any data set.
 */
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type {
  BreakdownRow,
  DayTrend,
  DurationPercentiles,
  GetReportDataResponse,
  OutcomeStats,
  TestRow,
} from '@assay/proto/assay/analytics/v1/analytics_pb';
import type { RunSnapshot } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { runStatus } from '@assay/contracts/runs/test-runs';
import type { Period } from './period';

export interface Outcome {
  executions: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
  /** Percentages 0–100 over the results that ran (executions - skipped). */
  passRate: number;
  failureRate: number;
  flakyRate: number;
  avgDurationMs: number;
}

export interface Durations {
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
}

export interface TestLine {
  title: string;
  file: string;
  projectName: string;
  stats: Outcome;
  durations: Durations;
  lastFailedAt: Date | null;
  lastFlakyAt: Date | null;
}

export interface DayLine {
  date: string;
  runs: number;
  stats: Outcome;
}

export interface BreakdownLine {
  name: string;
  runs: number;
  stats: Outcome;
}

export interface RunLine {
  counter: number;
  status: string;
  startTime: Date | null;
  durationMs: number;
  branch: string;
  environment: string;
  commit: string;
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
}

export interface ReportModel {
  project: { id: string; name: string };
  period: Period;
  filters: { branch: string; environment: string; tags: string[] };
  generatedAt: Date;
  /** When analytics last folded a run of the project (null: never). */
  lastFoldedAt: Date | null;
  totals: {
    runs: { total: number; passed: number; failed: number; interrupted: number; incomplete: number };
    stats: Outcome;
    durations: Durations;
    tests: number;
    specFiles: number;
  };
  trend: DayLine[];
  topFailing: TestLine[];
  topFlaky: TestLine[];
  slowest: TestLine[];
  byEnvironment: BreakdownLine[];
  byBranch: BreakdownLine[];
  /** The latest runs of the period that match the filters, newest first. */
  runs: RunLine[];
}

const n = (v: bigint | number | undefined) => Number(v ?? 0);
const dateOf = (t: Timestamp | undefined) => (t ? timestampDate(t) : null);

export function outcomeOf(s: OutcomeStats | undefined): Outcome {
  return {
    executions: n(s?.executions),
    passed: n(s?.passed),
    failed: n(s?.failed),
    flaky: n(s?.flaky),
    skipped: n(s?.skipped),
    passRate: s?.passRate ?? 0,
    failureRate: s?.failureRate ?? 0,
    flakyRate: s?.flakyRate ?? 0,
    avgDurationMs: s?.avgDurationMs ?? 0,
  };
}

function durationsOf(d: DurationPercentiles | undefined): Durations {
  return { p50: n(d?.p50Ms), p90: n(d?.p90Ms), p95: n(d?.p95Ms), p99: n(d?.p99Ms), min: n(d?.minMs), max: n(d?.maxMs) };
}

function testLine(t: TestRow): TestLine {
  return {
    title: t.title || t.titlePath.join(' › '),
    file: t.file,
    projectName: t.projectName,
    stats: outcomeOf(t.stats),
    durations: durationsOf(t.durations),
    lastFailedAt: dateOf(t.lastFailedAt),
    lastFlakyAt: dateOf(t.lastFlakyAt),
  };
}

const dayLine = (d: DayTrend): DayLine => ({ date: d.date, runs: n(d.runs), stats: outcomeOf(d.stats) });
const breakdownLine = (b: BreakdownRow): BreakdownLine => ({ name: b.name, runs: n(b.runs), stats: outcomeOf(b.stats) });

export function runLine(r: RunSnapshot): RunLine {
  const s = r.testStats;
  return {
    counter: n(r.counter),
    status: runStatus.fromProto(r.status),
    startTime: dateOf(r.startTime),
    durationMs: n(r.duration),
    branch: r.git?.branch ?? '',
    environment: r.git?.environment ?? '',
    commit: r.git?.commit?.hash ?? '',
    total: s?.total ?? 0,
    passed: s?.passed ?? 0,
    failed: s?.failed ?? 0,
    flaky: s?.flaky ?? 0,
    skipped: s?.skipped ?? 0,
  };
}

export function buildModel(input: {
  project: { id: string; name: string };
  period: Period;
  filters: ReportModel['filters'];
  data: GetReportDataResponse;
  runs: RunSnapshot[];
  generatedAt: Date;
}): ReportModel {
  const { data } = input;
  const t = data.totals;
  return {
    project: input.project,
    period: input.period,
    filters: input.filters,
    generatedAt: input.generatedAt,
    lastFoldedAt: dateOf(data.lastFoldedAt),
    totals: {
      runs: {
        total: n(t?.runs?.total),
        passed: n(t?.runs?.passed),
        failed: n(t?.runs?.failed),
        interrupted: n(t?.runs?.interrupted),
        incomplete: n(t?.runs?.incomplete),
      },
      stats: outcomeOf(t?.stats),
      durations: durationsOf(t?.durations),
      tests: n(t?.tests),
      specFiles: n(t?.specFiles),
    },
    trend: data.trend.map(dayLine),
    topFailing: data.topFailing.map(testLine),
    topFlaky: data.topFlaky.map(testLine),
    slowest: data.slowest.map(testLine),
    byEnvironment: data.byEnvironment.map(breakdownLine),
    byBranch: data.byBranch.map(breakdownLine),
    runs: input.runs.map(runLine),
  };
}
