/**
 * GET /test-case-explorer (CONTRACT §2): every automated test over a rolling window (`days` snapped to 7, 30 or 90),
 * filtered by status, sorted, paginated with the explorer's page sizes (10, 25, 50; others → INVALID_LIMIT).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { OkPage } from '@assay/contracts/common/envelope';
import { ProjectParams } from '@assay/contracts/common/json';
import { page, pageOf, pagination } from '@assay/contracts/common/pagination';
import { AnalyticsTestSchema, daysOf, snapDaysHook, testJson } from '@assay/contracts/analytics/figures';
import { ExplorerQuery, explorerSort, explorerStatus, sortOrder } from '@assay/contracts/analytics/test-case-explorer';
import { typed } from '../../typed';

export default async function explorerRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/test-case-explorer',
    {
      preValidation: snapDaysHook,
      schema: {
        tags: ['Test Case Explorer'],
        summary: 'Automated tests across runs: outcome rates and durations per test',
        description:
          '`status`: failing = at least one failed result in the window, flaky = at least one flaky result, stable = neither ' +
          '(and at least one ran), slow = p95 at least max(1 s, 2 × the project median) (settings ANALYTICS_SLOW_TEST_MIN_MS, ' +
          'ANALYTICS_SLOW_TEST_FACTOR); failing, flaky and slow may overlap. Ties of `sortBy` break by title, then test id.',
        params: ProjectParams,
        querystring: ExplorerQuery,
        response: { 200: OkPage(Type.Ref(AnalyticsTestSchema)) },
      },
    },
    async (request) => {
      const { status, sortBy, order } = request.query;
      const q = pageOf(request.query);
      const res = await app.services.analytics.listExplorerTests(
        {
          projectId: request.params.projectId,
          days: daysOf(request.query),
          status: status === undefined ? undefined : explorerStatus.toProto(status),
          sortBy: sortBy === undefined ? undefined : explorerSort.toProto(sortBy),
          order: order === undefined ? undefined : sortOrder.toProto(order),
          page: q,
        },
        request.callOptions(),
      );
      return page(res.tests.map(testJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );
}
