/** The `analytics` family's RPCs (GET /analytics/summary, GET /analytics/test-cases/performance): the rolling windows. */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  GetSummaryResponseSchema,
  GetTestPerformanceResponseSchema,
  type AnalyticsService,
  type GetSummaryResponse,
} from '@assay/proto/assay/analytics/v1/analytics_pb';
import { summaryToJson } from '@assay/contracts/analytics/analytics';
import type { Pool } from '@assay/db';
import { TOP_TESTS, type WindowDays } from '@assay/contracts/analytics/values';
import { windowDays } from '../domain/days';
import { percentilesOf } from '../domain/histogram';
import { emptyAgg } from '../domain/stats';
import { breakdownRow, dayTrend, durations, outcomeStats, runCounts as runCountsMsg, testColumns, testRow, windowOf } from '../domain/view';
import { cacheKey } from '../cache';
import { breakdown, byTag, performance, performanceJsonBytes } from '../store/analytics';
import { emptyRunCounts, fillDays, projectWindow, runCounts, topTests, trend, type TestFigures } from '../store/windows';
import type { Reads } from '../wiring';

/** The summary of a project's window from the read model (the reads bench's baseline runs this same SQL). */
export async function summaryOf(db: Pool, projectKey: number, days: WindowDays, from: number, until: number) {
  const [runs, totals, failing, flaky, slowest, tags, envs, trendDays, branches] = await Promise.all([
    runCounts(db, projectKey, from, until),
    projectWindow(db, projectKey, days),
    topTests(db, projectKey, days, 'failing', TOP_TESTS),
    topTests(db, projectKey, days, 'flaky', TOP_TESTS),
    topTests(db, projectKey, days, 'slowest', TOP_TESTS),
    byTag(db, projectKey, from, until),
    breakdown(db, projectKey, 'environment', from, until),
    trend(db, projectKey, from, until),
    breakdown(db, projectKey, 'branch', from, until),
  ]);
  return create(GetSummaryResponseSchema, {
    window: windowOf(from, until),
    runs: runCountsMsg(runs),
    stats: outcomeStats(totals.agg),
    durations: durations(totals.agg, totals.p),
    topFailing: failing.map(testRow),
    topFlaky: flaky.map(testRow),
    slowest: slowest.map(testRow),
    byTag: tags.map(breakdownRow),
    byEnvironment: envs.map(breakdownRow),
    trend: trendDays.map(dayTrend),
    byBranch: branches.map(breakdownRow),
  });
}

export function analyticsHandlers({
  model,
  cache,
}: Reads): Pick<ServiceImpl<typeof AnalyticsService>, 'getSummary' | 'getTestPerformance'> {
  const db = model.pool;
  return {
    async getSummary(req) {
      const days = windowDays(req.days);
      const state = await model.current(req.projectId);
      const until = state?.asOf ?? model.today();
      const from = until - days + 1;
      // With `json` the public summary itself, which the gateway passes on as it is (cached as bytes too).
      const answer = (s: GetSummaryResponse) => (req.json ? { summaryJson: Buffer.from(JSON.stringify(summaryToJson(s, days))) } : s);
      if (!state) {
        const none = emptyAgg();
        return answer(
          create(GetSummaryResponseSchema, {
            window: windowOf(from, until),
            runs: runCountsMsg(emptyRunCounts()),
            stats: outcomeStats(none),
            durations: durations(none, percentilesOf(none.hist)),
            trend: fillDays(from, until, [], []).map(dayTrend),
          }),
        );
      }
      return cache.get(cacheKey(state, 'summary', days, req.json), async () => answer(await summaryOf(db, state.key, days, from, until)));
    },

    async getTestPerformance(req) {
      const days = windowDays(req.days);
      const state = await model.current(req.projectId);
      const until = state?.asOf ?? model.today();
      const window = windowOf(until - days + 1, until);
      // With `json` the public rows themselves (what the gateway made of the columns), written by Postgres, passed on
      // as they are and cached as bytes.
      if (req.json) {
        const json = async () => ({ testsJson: state ? await performanceJsonBytes(db, state.key, days) : Buffer.from('[]') });
        return state ? cache.get(cacheKey(state, 'performance', days, 'json'), json) : json();
      }
      const answer = (tests: TestFigures[]) =>
        create(
          GetTestPerformanceResponseSchema,
          req.columnar ? { window, columns: testColumns(tests) } : { window, tests: tests.map(testRow) },
        );
      if (!state) return answer([]);
      return cache.get(cacheKey(state, 'performance', days, req.columnar), async () => answer(await performance(db, state.key, days)));
    },
  };
}
