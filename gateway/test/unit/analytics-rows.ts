/**
 * analytics.proto answers for the route tests of the analytics families (analytics, dashboard, specs,
 * test-case-explorer), and the JSON the contract maps them to.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';

export const AT = '2026-03-10T08:00:00.000Z';

export const stats = {
  executions: 12n,
  passed: 8n,
  failed: 2n,
  flaky: 1n,
  skipped: 1n,
  passRate: 72.73,
  failureRate: 18.18,
  flakyRate: 9.09,
  avgDurationMs: 1234.5,
  totalDurationMs: 13580n,
};

export const durations = { p50Ms: 900n, p90Ms: 2100n, p95Ms: 2500n, p99Ms: 3000n, minMs: 12n, maxMs: 3100n };

export const testRow = (over: Record<string, unknown> = {}) => ({
  testId: 't1',
  title: 'cart › adds an item',
  titlePath: ['cart', 'adds an item'],
  file: 'cart.spec.ts',
  projectName: 'chromium',
  stats,
  durations,
  lastRunAt: timestampFromDate(new Date(AT)),
  tags: ['@smoke'],
  ...over,
});

/** The JSON of `stats`: counts and rates (with the average duration) flattened. */
export const statsJson = {
  executions: 12,
  passed: 8,
  failed: 2,
  flaky: 1,
  skipped: 1,
  passRate: 72.73,
  failureRate: 18.18,
  flakyRate: 9.09,
  avgDuration: 1234.5,
};

/** The JSON of `durations`: the percentiles renamed. */
export const durationsJson = {
  p50Duration: 900,
  p90Duration: 2100,
  p95Duration: 2500,
  p99Duration: 3000,
  minDuration: 12,
  maxDuration: 3100,
};

/** The JSON of `testRow()` (absent times are null). */
export const testJson = {
  testId: 't1',
  title: 'cart › adds an item',
  titlePath: ['cart', 'adds an item'],
  file: 'cart.spec.ts',
  projectName: 'chromium',
  tags: ['@smoke'],
  ...statsJson,
  ...durationsJson,
  lastRunAt: AT,
  lastFailedAt: null,
  lastFlakyAt: null,
};

export const window = (days: number) => ({ days, fromDate: '2026-02-09', untilDate: '2026-03-10' });

export const day = (date: string) => ({ date, runs: 3n, stats });
