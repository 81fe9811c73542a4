/**
 * Outcome counts of a set of results and the figures derived from them (the rules of analytics.proto): classes
 * from Playwright's outcome, rates over the results that ran, durations over the results that ran.
 */
import { emptyHist, mergeHist, type Hist } from './histogram';

export type OutcomeClass = 'passed' | 'failed' | 'flaky' | 'skipped';

/** expected → passed, unexpected → failed, flaky → flaky, skipped → skipped. */
export function classOf(outcome: string): OutcomeClass {
  switch (outcome) {
    case 'expected':
      return 'passed';
    case 'flaky':
      return 'flaky';
    case 'skipped':
      return 'skipped';
    default:
      return 'failed';
  }
}

/** Mutable accumulator of one rollup row. Timestamps are epoch milliseconds. */
export interface Agg {
  executions: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
  durSum: number;
  durMin: number | null;
  durMax: number | null;
  hist: Hist;
  lastRunAt: number | null;
  lastFailedAt: number | null;
  lastFlakyAt: number | null;
  /** Runs (tag rollups only). */
  runs: number;
}

export const emptyAgg = (): Agg => ({
  executions: 0,
  passed: 0,
  failed: 0,
  flaky: 0,
  skipped: 0,
  durSum: 0,
  durMin: null,
  durMax: null,
  hist: emptyHist(),
  lastRunAt: null,
  lastFailedAt: null,
  lastFlakyAt: null,
  runs: 0,
});

export const maxOf = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
export const minOf = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

/** a += b (histograms, counts, extremes, latest timestamps). */
export function addAgg(a: Agg, b: Agg): Agg {
  a.executions += b.executions;
  a.passed += b.passed;
  a.failed += b.failed;
  a.flaky += b.flaky;
  a.skipped += b.skipped;
  a.durSum += b.durSum;
  a.durMin = minOf(a.durMin, b.durMin);
  a.durMax = maxOf(a.durMax, b.durMax);
  a.hist = mergeHist(a.hist, b.hist);
  a.lastRunAt = maxOf(a.lastRunAt, b.lastRunAt);
  a.lastFailedAt = maxOf(a.lastFailedAt, b.lastFailedAt);
  a.lastFlakyAt = maxOf(a.lastFlakyAt, b.lastFlakyAt);
  a.runs += b.runs;
  return a;
}

/** Accumulates results one at a time, keeping the histogram as a map until `finish`. */
export class AggBuilder {
  readonly agg = emptyAgg();
  private readonly buckets = new Map<number, number>();

  add(cls: OutcomeClass, durationMs: number, bucket: number, startedAt: number): void {
    const a = this.agg;
    a.executions++;
    a[cls]++;
    a.lastRunAt = maxOf(a.lastRunAt, startedAt);
    if (cls === 'failed') a.lastFailedAt = maxOf(a.lastFailedAt, startedAt);
    if (cls === 'flaky') a.lastFlakyAt = maxOf(a.lastFlakyAt, startedAt);
    if (cls === 'skipped') return;
    a.durSum += durationMs;
    a.durMin = minOf(a.durMin, durationMs);
    a.durMax = maxOf(a.durMax, durationMs);
    this.buckets.set(bucket, (this.buckets.get(bucket) ?? 0) + 1);
  }

  finish(): Agg {
    const idx = [...this.buckets.keys()].sort((x, y) => x - y);
    this.agg.hist = { idx, cnt: idx.map((k) => this.buckets.get(k)!) };
    return this.agg;
  }
}

export const ranOf = (a: { executions: number; skipped: number }) => a.executions - a.skipped;

/**
 * Percentage with two decimals; 0 when nothing ran. `rate` and `avgDuration` have a twin in SQL (`roundedRatio` in
 * store/analytics.ts, the performance list's JSON), held equal by test/unit/performance-json.test.ts.
 */
export const rate = (part: number, ran: number) => (ran > 0 ? Math.round((part / ran) * 10000) / 100 : 0);

export const avgDuration = (durSum: number, ran: number) => (ran > 0 ? Math.round((durSum / ran) * 100) / 100 : 0);
