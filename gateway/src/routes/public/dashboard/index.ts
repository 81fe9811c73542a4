/** GET /dashboard (CONTRACT §2): a fixed 30-day window; no query parameters (any given are stripped). */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';
import { runSnapshotToJson, TestRunSchema } from '@assay/contracts/runs/test-runs';
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
} from '../analytics/schemas';

export default async function dashboardRoutes(app: FastifyInstance) {
  app.get(
    '/:projectId/dashboard',
    {
      schema: {
        tags: ['Dashboard'],
        summary: 'Project dashboard over the last 30 days',
        description:
          'Fixed 30-day window ending today (UTC). Run counts by status, results and rates, the pass-rate trend by day, the 10 ' +
          'flakiest and 10 most failing tests, and the runs running now. Takes no query parameters.',
        params: Type.Object({ projectId: Type.String() }),
        querystring: Type.Object({}),
        response: {
          200: Ok(
            Type.Object({
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
              activeRuns: Type.Array(Type.Ref(TestRunSchema), { description: 'running now, newest first (at most 50)' }),
            }),
          ),
        },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const d = await app.services.analytics.getDashboard({ projectId }, request.callOptions());
      return ok({
        days: d.window?.days ?? 30,
        from: d.window?.fromDate ?? '',
        until: d.window?.untilDate ?? '',
        runCounts: { ...runCountsJson(d.runs), running: Number(d.runs?.running ?? 0) },
        totals: { ...countsOf(d.stats), ...ratesOf(d.stats) },
        passRateTrend: d.trend.map(dayJson),
        topFlaky: d.topFlaky.map(testJson),
        topFailing: d.topFailing.map(testJson),
        activeRuns: d.activeRuns.map(runSnapshotToJson),
      });
    },
  );
}
