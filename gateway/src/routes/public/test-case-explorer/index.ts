/**
 * GET /test-case-explorer (CONTRACT §2): every automated test over a rolling window (`days` snapped to 7, 30 or 90),
 * filtered by status, sorted, paginated with the explorer's page sizes (10, 25, 50; others → INVALID_LIMIT).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { OkPage } from '@assay/contracts/common/envelope';
import { EXPLORER_PAGE_SIZES, PageQuery, page, pagination, type PageQueryValue } from '@assay/contracts/common/pagination';
import { AnalyticsTestSchema, DaysQuery, snapDaysHook, testJson } from '../analytics/schemas';

const Enum = (values: string[], description: string) => Type.Optional(Type.Unsafe<string>({ type: 'string', enum: values, description }));

export default async function explorerRoutes(app: FastifyInstance) {
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
        params: Type.Object({ projectId: Type.String() }),
        querystring: Type.Object({
          ...DaysQuery(),
          status: Enum(['flaky', 'failing', 'stable', 'slow'], 'filter'),
          sortBy: Enum(['flaky_rate', 'failure_rate', 'p95_duration', 'executions'], 'sort key (default executions)'),
          order: Enum(['asc', 'desc'], 'default desc'),
          ...PageQuery(EXPLORER_PAGE_SIZES),
        }),
        response: { 200: OkPage(Type.Ref(AnalyticsTestSchema)) },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as PageQueryValue & { days: number; status?: string; sortBy?: string; order?: string };
      const res = await app.services.analytics.listExplorerTests(
        {
          projectId,
          days: q.days,
          status: q.status ?? '',
          sortBy: q.sortBy ?? '',
          order: q.order ?? '',
          page: { page: q.page, limit: q.limit },
        },
        request.callOptions(),
      );
      return page(res.tests.map(testJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );
}
