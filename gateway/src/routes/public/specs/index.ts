/** GET /specs (CONTRACT §2): spec-file health over a rolling window (`days` snapped to 7, 30 or 90), paginated. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { OkPage } from '@assay/contracts/common/envelope';
import { ProjectParams } from '@assay/contracts/common/json';
import { page, pageOf, pagination } from '@assay/contracts/common/pagination';
import { daysOf, snapDaysHook } from '@assay/contracts/analytics/figures';
import { AnalyticsSpecSchema, SpecsQuery, specJson } from '@assay/contracts/analytics/specs';
import { typed } from '../../typed';

export default async function specRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/specs',
    {
      preValidation: snapDaysHook,
      schema: {
        tags: ['Specs'],
        summary: 'Spec files: executions, pass / failure / flaky rates, average and percentile durations, last run',
        description: 'Most failures first, then file name.',
        params: ProjectParams,
        querystring: SpecsQuery,
        response: { 200: OkPage(Type.Ref(AnalyticsSpecSchema)) },
      },
    },
    async (request) => {
      const q = pageOf(request.query);
      const res = await app.services.analytics.listSpecs(
        { projectId: request.params.projectId, days: daysOf(request.query), page: q },
        request.callOptions(),
      );
      return page(res.specs.map(specJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );
}
