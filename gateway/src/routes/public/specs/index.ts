/** GET /specs (CONTRACT §2): spec-file health over a rolling window (`days` snapped to 7, 30 or 90), paginated. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { OkPage } from '@assay/contracts/common/envelope';
import { PageQuery, page, pagination, type PageQueryValue } from '@assay/contracts/common/pagination';
import { AnalyticsSpecSchema, DaysQuery, snapDaysHook, specJson } from '../analytics/schemas';

export default async function specRoutes(app: FastifyInstance) {
  app.get(
    '/:projectId/specs',
    {
      preValidation: snapDaysHook,
      schema: {
        tags: ['Specs'],
        summary: 'Spec files: executions, pass / failure / flaky rates, average and percentile durations, last run',
        description: 'Most failures first, then file name.',
        params: Type.Object({ projectId: Type.String() }),
        querystring: Type.Object({ ...DaysQuery(), ...PageQuery() }),
        response: { 200: OkPage(Type.Ref(AnalyticsSpecSchema)) },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as PageQueryValue & { days: number };
      const res = await app.services.analytics.listSpecs(
        { projectId, days: q.days, page: { page: q.page, limit: q.limit } },
        request.callOptions(),
      );
      return page(res.specs.map(specJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );
}
