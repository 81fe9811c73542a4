/**
 * GET /filters and GET /filters/{environments|branches|developers|tags} (CONTRACT §2): values seen in the project's
 * runs, sorted; no query parameters (any given are stripped). Developers are commit authors; tags are run tags
 * and test tags.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';

const KINDS = ['environments', 'branches', 'developers', 'tags'] as const;

export default async function filterRoutes(app: FastifyInstance) {
  const tags = ['Filters'];
  const params = Type.Object({ projectId: Type.String() });
  const Values = (what: string) => Type.Array(Type.String(), { description: `${what} seen in the project's runs, sorted` });
  const what = { environments: 'environments', branches: 'branches', developers: 'commit authors', tags: 'run and test tags' };

  app.get(
    '/:projectId/filters',
    {
      schema: {
        tags,
        summary: 'Values to filter by: environments, branches, developers and tags',
        params,
        querystring: Type.Object({}),
        response: {
          200: Ok(
            Type.Object({
              environments: Values(what.environments),
              branches: Values(what.branches),
              developers: Values(what.developers),
              tags: Values(what.tags),
            }),
          ),
        },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const f = await app.services.analytics.getFilters({ projectId }, request.callOptions());
      return ok({ environments: f.environments, branches: f.branches, developers: f.developers, tags: f.tags });
    },
  );

  for (const kind of KINDS) {
    app.get(
      `/:projectId/filters/${kind}`,
      {
        schema: {
          tags,
          summary: `Filter values: ${what[kind]}`,
          params,
          querystring: Type.Object({}),
          response: { 200: Ok(Values(what[kind])) },
        },
      },
      async (request) => {
        const { projectId } = request.params as { projectId: string };
        const f = await app.services.analytics.getFilters({ projectId }, request.callOptions());
        return ok(f[kind]);
      },
    );
  }
}
