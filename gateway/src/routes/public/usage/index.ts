/** GET /usage (CONTRACT §2): the organization's plan, current period and ingested test results and runs. */
import type { FastifyInstance } from 'fastify';
import { ok } from '@assay/contracts/common/envelope';
import { ProjectParams } from '@assay/contracts/runs/test-runs';
import { UsageAnswer, usageToJson } from '@assay/contracts/runs/usage';
import { typed } from '../../typed';

export default async function usageRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/usage',
    {
      schema: {
        tags: ['Usage'],
        summary: "Subscription usage and limits of the project's organization",
        params: ProjectParams,
        response: { 200: UsageAnswer },
      },
    },
    async (request) => {
      const u = await app.services.runs.getUsage({ projectId: request.params.projectId }, request.callOptions());
      return ok(usageToJson(u));
    },
  );
}
