/**
 * GET /analytics/summary and GET /analytics/test-cases/performance (spec §4.2, CONTRACT §2): figures of the
 * analytics read model over a rolling window of `days` (snapped to 7, 30 or 90; spec §4.1).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';
import { ProjectParams } from '@assay/contracts/common/json';
import { daysOf, snapDaysHook } from '@assay/contracts/analytics/figures';
import { MAX_PERFORMANCE_ROWS } from '@assay/contracts/analytics/values';
import {
  AnalyticsPerformanceSchema,
  performanceJsonFromColumns,
  SummarySchema,
  summaryToJson,
  WindowQuery,
} from '@assay/contracts/analytics/analytics';
import { sendJson } from '../../json-page';
import { typed } from '../../typed';

const TAGS = ['Analytics'];

export default async function analyticsRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/analytics/summary',
    {
      preValidation: snapDaysHook,
      schema: {
        tags: TAGS,
        summary: 'Totals, rates, durations, top failing / flaky / slowest tests, breakdowns and the daily trend',
        description: 'Only `days` (7, 30, 90; default 30). A run and its results count in the window of the UTC day the run started.',
        params: ProjectParams,
        querystring: WindowQuery,
        response: { 200: Ok(SummarySchema) },
      },
    },
    async (request, reply) => {
      const days = daysOf(request.query);
      const s = await app.services.analytics.getSummary({ projectId: request.params.projectId, days, json: true }, request.callOptions());
      // No bytes: an analytics service older than the `json` field (a rolling upgrade) answered the message.
      if (s.summaryJson.length === 0) return ok(summaryToJson(s, days));
      return sendJson(reply, s.summaryJson);
    },
  );

  app.get(
    '/:projectId/analytics/test-cases/performance',
    {
      preValidation: snapDaysHook,
      schema: {
        tags: TAGS,
        summary: 'Per-test duration percentiles merged with failure statistics',
        description:
          `Every test that ran in the window (at most ${MAX_PERFORMANCE_ROWS}), slowest p95 first: p50/p90/p95/p99 (estimated within ` +
          '2.5 %), exact min and max, and its outcome counts and rates, by test identifier. Only `days` is supported.',
        params: ProjectParams,
        querystring: WindowQuery,
        response: { 200: Ok(Type.Array(Type.Ref(AnalyticsPerformanceSchema))) },
      },
    },
    async (request, reply) => {
      const res = await app.services.analytics.getTestPerformance(
        { projectId: request.params.projectId, days: daysOf(request.query), columnar: true, json: true },
        request.callOptions(),
      );
      // No bytes: an analytics service older than the `json` field (a rolling upgrade) answered the columns.
      if (res.testsJson.length === 0) return ok(performanceJsonFromColumns(res.columns));
      return sendJson(reply, res.testsJson);
    },
  );
}
