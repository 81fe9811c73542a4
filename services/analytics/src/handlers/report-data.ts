/**
 * GetReportData, for the reports service (the `reports` family's PDFs): every figure of one report over an exact
 * window of whole days (never snapped; at most REPORT_DATA_MAX_DAYS) and optional branch / environment / tags
 * filters, from the daily rollups.
 */
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { AnalyticsService, GetReportDataRequest } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { validation } from '@assay/errors';
import { REPORT_DATA_DEFAULT_DAYS, REPORT_DATA_MAX_DAYS, REPORT_DATA_MAX_TOP, TOP_TESTS } from '@assay/contracts/analytics/values';
import { dayOf } from '../domain/days';
import { percentilesOf } from '../domain/histogram';
import { emptyAgg } from '../domain/stats';
import { breakdownRow, dayTrend, durations, outcomeStats, runCounts as runCountsMsg, testRow, windowOf } from '../domain/view';
import { reportFigures } from '../store/report-data';
import { emptyRunCounts, fillDays } from '../store/windows';
import type { Reads } from '../wiring';

/** The days [from, until] a request asks for: `days` ending today, else `from`..`until`, else the default. */
function windowAsked(req: Pick<GetReportDataRequest, 'days' | 'from' | 'until'>, today: number): { from: number; until: number } {
  if (req.days) {
    if (req.days < 1 || req.days > REPORT_DATA_MAX_DAYS)
      throw validation(`days must be between 1 and ${REPORT_DATA_MAX_DAYS}`, [
        { path: 'days', message: `must be 1–${REPORT_DATA_MAX_DAYS}` },
      ]);
    return { from: today - req.days + 1, until: today };
  }
  if (req.from || req.until) {
    if (!req.from || !req.until)
      throw validation('from and until are used together', [{ path: 'from', message: 'from and until together' }]);
    const from = dayOf(timestampDate(req.from));
    const until = dayOf(timestampDate(req.until));
    if (from > until) throw validation('from must not be after until', [{ path: 'from', message: 'must not be after until' }]);
    if (until - from + 1 > REPORT_DATA_MAX_DAYS)
      throw validation(`the window is at most ${REPORT_DATA_MAX_DAYS} days`, [
        { path: 'until', message: `at most ${REPORT_DATA_MAX_DAYS} days after from` },
      ]);
    return { from, until };
  }
  return { from: today - REPORT_DATA_DEFAULT_DAYS + 1, until: today };
}

export function reportDataHandlers({ model }: Reads): Pick<ServiceImpl<typeof AnalyticsService>, 'getReportData'> {
  return {
    async getReportData(req) {
      const { from, until } = windowAsked(req, model.today());
      const topLimit = Math.min(REPORT_DATA_MAX_TOP, Math.max(1, req.topLimit || TOP_TESTS));
      const state = await model.current(req.projectId);
      const generatedAt = timestampFromDate(model.now());
      if (!state) {
        const none = emptyAgg();
        return {
          window: windowOf(from, until),
          totals: { runs: runCountsMsg(emptyRunCounts()), stats: outcomeStats(none), durations: durations(none, percentilesOf(none.hist)) },
          trend: fillDays(from, until, [], []).map(dayTrend),
          generatedAt,
        };
      }
      const f = await reportFigures(
        model.pool,
        state.key,
        from,
        until,
        { branch: req.branch || undefined, environment: req.environment || undefined, tags: req.tags.filter(Boolean) },
        topLimit,
      );
      return {
        window: windowOf(from, until),
        totals: {
          runs: runCountsMsg(f.runs),
          stats: outcomeStats(f.totals),
          durations: durations(f.totals, percentilesOf(f.totals.hist)),
          tests: BigInt(f.tests),
          specFiles: BigInt(f.specFiles),
        },
        trend: f.trend.map(dayTrend),
        topFailing: f.topFailing.map(testRow),
        topFlaky: f.topFlaky.map(testRow),
        slowest: f.slowest.map(testRow),
        byEnvironment: f.byEnvironment.map(breakdownRow),
        byBranch: f.byBranch.map(breakdownRow),
        byTag: f.byTag.map(breakdownRow),
        lastFoldedAt: state.lastFoldedAt ? timestampFromDate(state.lastFoldedAt) : undefined,
        generatedAt,
      };
    },
  };
}
