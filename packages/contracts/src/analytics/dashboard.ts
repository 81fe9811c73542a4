/**
 * The `dashboard` family (CONTRACT §2): GET /dashboard, a fixed 30-day window (DASHBOARD_DAYS); no query
 * parameters (any given are stripped).
 */
import { Type, type Static } from '@sinclair/typebox';
import type { GetDashboardResponse } from '@assay/proto/assay/analytics/v1/analytics_pb';
import type { RunSnapshot } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import {
  AnalyticsDaySchema,
  AnalyticsTestSchema,
  countsOf,
  dayJson,
  ratesOf,
  RunCountsSchema,
  runCountsJson,
  testJson,
  WindowFields,
} from './figures';
import { DASHBOARD_DAYS, MAX_ACTIVE_RUNS } from './values';

/** A run as GET /test-runs lists it: the runs domain's `TestRunListItem` component (registered by the gateway). */
const TestRunRef = Type.Ref('TestRunListItem');

export const DashboardQuery = Type.Object({});

export const DashboardSchema = Type.Object({
  ...WindowFields,
  runCounts: Type.Composite([RunCountsSchema, Type.Object({ running: Type.Integer({ description: 'runs running now' }) })]),
  totals: Type.Object({
    executions: Type.Integer(),
    passed: Type.Integer(),
    failed: Type.Integer(),
    flaky: Type.Integer(),
    skipped: Type.Integer(),
    passRate: Type.Number(),
    failureRate: Type.Number(),
    flakyRate: Type.Number(),
    avgDuration: Type.Number(),
  }),
  passRateTrend: Type.Array(Type.Ref(AnalyticsDaySchema), { description: 'one entry per day, oldest first' }),
  topFlaky: Type.Array(Type.Ref(AnalyticsTestSchema)),
  topFailing: Type.Array(Type.Ref(AnalyticsTestSchema)),
  activeRuns: Type.Array(TestRunRef, { description: `running now, newest first (at most ${MAX_ACTIVE_RUNS})` }),
});
export type DashboardJson = Static<typeof DashboardSchema>;

/** `runToJson` maps each active run as GET /test-runs does (the runs domain's mapper). */
export function dashboardToJson(d: GetDashboardResponse, runToJson: (r: RunSnapshot) => unknown): DashboardJson {
  return {
    days: d.window?.days ?? DASHBOARD_DAYS,
    from: d.window?.fromDate ?? '',
    until: d.window?.untilDate ?? '',
    runCounts: { ...runCountsJson(d.runs), running: Number(d.runs?.running ?? 0) },
    totals: { ...countsOf(d.stats), ...ratesOf(d.stats) },
    passRateTrend: d.trend.map(dayJson),
    topFlaky: d.topFlaky.map(testJson),
    topFailing: d.topFailing.map(testJson),
    activeRuns: d.activeRuns.map(runToJson),
  };
}
