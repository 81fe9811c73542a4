/** AnalyticsService: the public endpoints from the rolling windows, report data from the daily rollups. */
import { create, fromBinary } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  GetSummaryResponseSchema,
  GetTestPerformanceResponseSchema,
  ListExplorerTestsResponseSchema,
  ListSpecsResponseSchema,
  type AnalyticsService,
} from '@assay/proto/assay/analytics/v1/analytics_pb';
import { RunSnapshotSchema } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { validation } from '@assay/errors';
import { dayOf, isKeptWindow, type WindowDays } from '../domain/days';
import { percentilesOf } from '../domain/histogram';
import { emptyAgg } from '../domain/stats';
import type { ReadModel } from '../read-model';
import type { ReadCache } from '../cache';
import {
  activeRuns,
  breakdown,
  byTag,
  emptyRunCounts,
  fillDays,
  filterValues,
  listSpecs,
  listTests,
  performance,
  projectWindow,
  runCounts,
  topTests,
  trend,
  type TestFilter,
  type TestSort,
} from '../store/read';
import { reportFigures } from '../store/report';
import {
  breakdownRow,
  dayTrend,
  durations,
  outcomeStats,
  runCounts as runCountsMsg,
  specRow,
  testColumns,
  testRow,
  windowOf,
} from './view';

export interface AnalyticsOptions {
  slowTestMinMs: number;
  slowTestFactor: number;
}

const DASHBOARD_DAYS = 30;
const TOP = 10;
const ACTIVE_RUNS = 50;
const FILTERS: TestFilter[] = ['failing', 'flaky', 'stable', 'slow'];
const SORTS: TestSort[] = ['flaky_rate', 'failure_rate', 'p95_duration', 'executions'];

/** `days` of the public endpoints: the gateway sends 7, 30 or 90; 0 means the default 30. */
function windowDays(days: number): WindowDays {
  const d = days || 30;
  if (!isKeptWindow(d)) throw validation('days must be 7, 30 or 90', [{ path: 'query.days', message: 'must be 7, 30 or 90' }]);
  return d;
}

function pageOf(p?: { page: number; limit: number }) {
  const page = Math.max(1, p?.page || 1);
  const limit = Math.min(100, Math.max(1, p?.limit || 10));
  return { page, limit, offset: (page - 1) * limit };
}

export function analyticsHandlers(model: ReadModel, o: AnalyticsOptions, cache: ReadCache): ServiceImpl<typeof AnalyticsService> {
  const db = model.pool;
  const key = (state: { key: number; version: number; asOf: number }, ...parts: unknown[]) =>
    [state.key, state.version, state.asOf, ...parts].join(':');
  const slowThreshold = (p50: number) => Math.max(o.slowTestMinMs, Math.round(o.slowTestFactor * p50));

  async function summary(projectKey: number, days: WindowDays, from: number, until: number) {
    const [runs, totals, failing, flaky, slowest, tags, envs, trendDays, branches] = await Promise.all([
      runCounts(db, projectKey, from, until),
      projectWindow(db, projectKey, days),
      topTests(db, projectKey, days, 'failing', TOP),
      topTests(db, projectKey, days, 'flaky', TOP),
      topTests(db, projectKey, days, 'slowest', TOP),
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

  return {
    async getDashboard(req) {
      const state = await model.current(req.projectId);
      const until = state?.asOf ?? model.today();
      const from = until - DASHBOARD_DAYS + 1;
      if (!state)
        return {
          window: windowOf(from, until),
          runs: runCountsMsg(emptyRunCounts()),
          stats: outcomeStats(emptyAgg()),
          trend: fillDays(from, until, [], []).map(dayTrend),
        };
      const [runs, totals, days, flaky, failing, active] = await Promise.all([
        runCounts(db, state.key, from, until),
        projectWindow(db, state.key, DASHBOARD_DAYS),
        trend(db, state.key, from, until),
        topTests(db, state.key, DASHBOARD_DAYS, 'flaky', TOP),
        topTests(db, state.key, DASHBOARD_DAYS, 'failing', TOP),
        activeRuns(db, state.key, ACTIVE_RUNS),
      ]);
      runs.running = active.count;
      return {
        window: windowOf(from, until),
        runs: runCountsMsg(runs),
        stats: outcomeStats(totals.agg),
        trend: days.map(dayTrend),
        topFlaky: flaky.map(testRow),
        topFailing: failing.map(testRow),
        activeRuns: active.snapshots.map((b) => {
          // As the runs service answers a running run: its duration so far.
          const run = fromBinary(RunSnapshotSchema, b);
          if (run.startTime) run.duration = BigInt(Math.max(0, model.now().getTime() - timestampDate(run.startTime).getTime()));
          return run;
        }),
      };
    },

    async getFilters(req) {
      const state = await model.current(req.projectId);
      if (!state) return {};
      const v = await filterValues(db, state.key);
      return { environments: v.environment, branches: v.branch, developers: v.developer, tags: v.tag };
    },

    async listExplorerTests(req) {
      const days = windowDays(req.days);
      if (req.status && !FILTERS.includes(req.status as TestFilter))
        throw validation('status must be flaky, failing, stable or slow', [
          { path: 'query.status', message: 'must be flaky, failing, stable or slow' },
        ]);
      if (req.sortBy && !SORTS.includes(req.sortBy as TestSort))
        throw validation('sortBy must be flaky_rate, failure_rate, p95_duration or executions', [
          { path: 'query.sortBy', message: 'must be flaky_rate, failure_rate, p95_duration or executions' },
        ]);
      if (req.order && req.order !== 'asc' && req.order !== 'desc')
        throw validation('order must be asc or desc', [{ path: 'query.order', message: 'must be asc or desc' }]);
      const { page, limit, offset } = pageOf(req.page);
      const state = await model.current(req.projectId);
      const until = state?.asOf ?? model.today();
      const window = windowOf(until - days + 1, until);
      if (!state) return { window, tests: [], page: { page, limit, total: 0n }, slowThresholdMs: BigInt(o.slowTestMinMs) };
      return cache.get(key(state, 'explorer', days, req.status, req.sortBy, req.order, page, limit), async () => {
        const totals = await projectWindow(db, state.key, days);
        const threshold = slowThreshold(totals.p.p50);
        const res = await listTests(db, state.key, days, {
          filter: (req.status || undefined) as TestFilter | undefined,
          sort: (req.sortBy || 'executions') as TestSort,
          order: req.order === 'asc' ? 'asc' : 'desc',
          limit,
          offset,
          slowThresholdMs: threshold,
        });
        return create(ListExplorerTestsResponseSchema, {
          window,
          tests: res.tests.map(testRow),
          page: { page, limit, total: BigInt(res.total) },
          slowThresholdMs: BigInt(threshold),
        });
      });
    },

    async listSpecs(req) {
      const days = windowDays(req.days);
      const { page, limit, offset } = pageOf(req.page);
      const state = await model.current(req.projectId);
      const until = state?.asOf ?? model.today();
      const window = windowOf(until - days + 1, until);
      if (!state) return { window, specs: [], page: { page, limit, total: 0n } };
      return cache.get(key(state, 'specs', days, page, limit), async () => {
        const res = await listSpecs(db, state.key, days, { limit, offset });
        return create(ListSpecsResponseSchema, { window, specs: res.specs.map(specRow), page: { page, limit, total: BigInt(res.total) } });
      });
    },

    async getSummary(req) {
      const days = windowDays(req.days);
      const state = await model.current(req.projectId);
      const until = state?.asOf ?? model.today();
      const from = until - days + 1;
      if (!state) {
        const none = emptyAgg();
        return {
          window: windowOf(from, until),
          runs: runCountsMsg(emptyRunCounts()),
          stats: outcomeStats(none),
          durations: durations(none, percentilesOf(none.hist)),
          trend: fillDays(from, until, [], []).map(dayTrend),
        };
      }
      return cache.get(key(state, 'summary', days), () => summary(state.key, days, from, until));
    },

    async getTestPerformance(req) {
      const days = windowDays(req.days);
      const state = await model.current(req.projectId);
      const until = state?.asOf ?? model.today();
      const window = windowOf(until - days + 1, until);
      if (!state) return { window, tests: [], columns: req.columnar ? testColumns([]) : undefined };
      return cache.get(key(state, 'performance', days, req.columnar), async () => {
        const tests = await performance(db, state.key, days);
        return create(
          GetTestPerformanceResponseSchema,
          req.columnar ? { window, columns: testColumns(tests) } : { window, tests: tests.map(testRow) },
        );
      });
    },

    async getReportData(req) {
      const today = model.today();
      let from: number;
      let until: number;
      if (req.days) {
        if (req.days < 1 || req.days > 90) throw validation('days must be between 1 and 90', [{ path: 'days', message: 'must be 1–90' }]);
        until = today;
        from = today - req.days + 1;
      } else if (req.from || req.until) {
        if (!req.from || !req.until)
          throw validation('from and until are used together', [{ path: 'from', message: 'from and until together' }]);
        from = dayOf(timestampDate(req.from));
        until = dayOf(timestampDate(req.until));
        if (from > until) throw validation('from must not be after until', [{ path: 'from', message: 'must not be after until' }]);
        if (until - from + 1 > 90)
          throw validation('the window is at most 90 days', [{ path: 'until', message: 'at most 90 days after from' }]);
      } else {
        until = today;
        from = today - 29;
      }
      const topLimit = Math.min(100, Math.max(1, req.topLimit || TOP));
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
        db,
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
