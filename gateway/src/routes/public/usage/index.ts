/** GET /usage (CONTRACT §2): the organization's plan, current period and ingested test results and runs. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Ok, ok } from '@assay/contracts/common/envelope';

export default async function usageRoutes(app: FastifyInstance) {
  app.get(
    '/:projectId/usage',
    {
      schema: {
        tags: ['Usage'],
        summary: "Subscription usage and limits of the project's organization",
        params: Type.Object({ projectId: Type.String() }),
        response: {
          200: Ok(
            Type.Object({
              planName: Type.String(),
              periodStart: Type.String({ format: 'date-time' }),
              periodEnd: Type.String({ format: 'date-time' }),
              limits: Type.Object({ testResultsPerMonth: Type.Integer() }),
              used: Type.Object({ testResults: Type.Integer(), runs: Type.Integer() }),
              remaining: Type.Integer({ description: 'test results left in the period' }),
            }),
          ),
        },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const u = await app.services.runs.getUsage({ projectId }, request.callOptions());
      return ok({
        planName: u.planName,
        periodStart: timestampDate(u.periodStart!).toISOString(),
        periodEnd: timestampDate(u.periodEnd!).toISOString(),
        limits: { testResultsPerMonth: Number(u.testResultsPerMonth) },
        used: { testResults: Number(u.usedTestResults), runs: Number(u.usedRuns) },
        remaining: Number(u.remaining),
      });
    },
  );
}
