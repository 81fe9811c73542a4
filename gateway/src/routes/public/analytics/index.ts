/**
 * GET /analytics/summary and GET /analytics/test-cases/performance (spec §4.2, CONTRACT §2): figures of the
 * analytics read model over a rolling window of `days` (snapped to 7, 30 or 90; spec §4.1).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';
import {
  AnalyticsBreakdownSchema,
  AnalyticsDaySchema,
  AnalyticsPerformanceSchema,
  AnalyticsTestSchema,
  breakdownJson,
  countsOf,
  dayJson,
  DaysQuery,
  percentilesOf,
  performanceJsonFromColumns,
  ratesOf,
  RunCountsSchema,
  runCountsJson,
  snapDaysHook,
  testJson,
  WindowFields,
} from './schemas';

export default async function analyticsRoutes(app: FastifyInstance) {
  const tags = ['Analytics'];
  const params = Type.Object({ projectId: Type.String() });

  app.get(
    '/:projectId/analytics/summary',
    {
      preValidation: snapDaysHook,
      schema: {
        tags,
        summary: 'Totals, rates, durations, top failing / flaky / slowest tests, breakdowns and the daily trend',
        description: 'Only `days` (7, 30, 90; default 30). A run and its results count in the window of the UTC day the run started.',
        params,
        querystring: Type.Object(DaysQuery()),
        response: {
          200: Ok(
            Type.Object({
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
            }),
          ),
        },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const { days } = request.query as { days: number };
      const s = await app.services.analytics.getSummary({ projectId, days }, request.callOptions());
      const p = percentilesOf(s.durations);
      return ok({
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
      });
    },
  );

  app.get(
    '/:projectId/analytics/test-cases/performance',
    {
      preValidation: snapDaysHook,
      schema: {
        tags,
        summary: 'Per-test duration percentiles merged with failure statistics',
        description:
          'Every test that ran in the window, slowest p95 first: p50/p90/p95/p99 (estimated within 2.5 %), exact min and max, ' +
          'and its outcome counts and rates, by test identifier. Only `days` is supported.',
        params,
        querystring: Type.Object(DaysQuery()),
        response: { 200: Ok(Type.Array(Type.Ref(AnalyticsPerformanceSchema))) },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const { days } = request.query as { days: number };
      const res = await app.services.analytics.getTestPerformance({ projectId, days, columnar: true }, request.callOptions());
      return ok(performanceJsonFromColumns(res.columns));
    },
  );
}
