/** The `dashboard` family's RPC (GET /dashboard): a fixed 30-day window and the runs running now. */
import type { ServiceImpl } from '@connectrpc/connect';
import type { AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { DASHBOARD_DAYS, MAX_ACTIVE_RUNS, TOP_TESTS } from '@assay/contracts/analytics/values';
import { emptyAgg } from '../domain/stats';
import { dayTrend, outcomeStats, runCounts as runCountsMsg, testRow, windowOf } from '../domain/view';
import { emptyRunCounts, fillDays, projectWindow, runCounts, topTests, trend } from '../store/windows';
import type { Reads } from '../wiring';

export function dashboardHandlers({ model }: Reads): Pick<ServiceImpl<typeof AnalyticsService>, 'getDashboard'> {
  const db = model.pool;
  return {
    async getDashboard(req, ctx) {
      const [state, active] = await Promise.all([
        model.current(req.projectId),
        model.runningNow(req.projectId, MAX_ACTIVE_RUNS, ctx.signal),
      ]);
      const until = state?.asOf ?? model.today();
      const from = until - DASHBOARD_DAYS + 1;
      if (!state)
        return {
          window: windowOf(from, until),
          runs: runCountsMsg({ ...emptyRunCounts(), running: active.count }),
          stats: outcomeStats(emptyAgg()),
          trend: fillDays(from, until, [], []).map(dayTrend),
          activeRuns: active.runs,
        };
      const [runs, totals, days, flaky, failing] = await Promise.all([
        runCounts(db, state.key, from, until),
        projectWindow(db, state.key, DASHBOARD_DAYS),
        trend(db, state.key, from, until),
        topTests(db, state.key, DASHBOARD_DAYS, 'flaky', TOP_TESTS),
        topTests(db, state.key, DASHBOARD_DAYS, 'failing', TOP_TESTS),
      ]);
      runs.running = active.count;
      return {
        window: windowOf(from, until),
        runs: runCountsMsg(runs),
        stats: outcomeStats(totals.agg),
        trend: days.map(dayTrend),
        topFlaky: flaky.map(testRow),
        topFailing: failing.map(testRow),
        activeRuns: active.runs,
      };
    },
  };
}
