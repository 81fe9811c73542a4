/**
 * GET /filters and GET /filters/{environments|branches|developers|tags} (CONTRACT §2): values seen in the project's
 * runs, sorted; no query parameters (any given are stripped). Developers are commit authors; tags are run tags
 * and test tags.
 */
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';
import { ProjectParams } from '@assay/contracts/common/json';
import { FILTER_KINDS } from '@assay/contracts/analytics/values';
import { FILTER_VALUES_OF, FiltersQuery, FiltersSchema, filtersToJson, FilterValuesSchema } from '@assay/contracts/analytics/filters';
import { typed } from '../../typed';

const TAGS = ['Filters'];

export default async function filterRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/filters',
    {
      schema: {
        tags: TAGS,
        summary: 'Values to filter by: environments, branches, developers and tags',
        params: ProjectParams,
        querystring: FiltersQuery,
        response: { 200: Ok(FiltersSchema) },
      },
    },
    async (request) => {
      const f = await app.services.analytics.getFilters({ projectId: request.params.projectId }, request.callOptions());
      return ok(filtersToJson(f));
    },
  );

  for (const kind of FILTER_KINDS) {
    app.get(
      `/:projectId/filters/${kind}`,
      {
        schema: {
          tags: TAGS,
          summary: `Filter values: ${FILTER_VALUES_OF[kind]}`,
          params: ProjectParams,
          querystring: FiltersQuery,
          response: { 200: Ok(FilterValuesSchema(kind)) },
        },
      },
      async (request) => {
        const f = await app.services.analytics.getFilters({ projectId: request.params.projectId }, request.callOptions());
        return ok(filtersToJson(f)[kind]);
      },
    );
  }
}
