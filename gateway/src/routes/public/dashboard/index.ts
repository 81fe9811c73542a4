/** GET /dashboard (CONTRACT §2): a fixed 30-day window; no query parameters (any given are stripped). */
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';
import { ProjectParams } from '@assay/contracts/common/json';
import { DashboardQuery, DashboardSchema, dashboardToJson } from '@assay/contracts/analytics/dashboard';
import { runSnapshotToJson } from '@assay/contracts/runs/test-runs';
import { typed } from '../../typed';

export default async function dashboardRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/dashboard',
    {
      schema: {
        tags: ['Dashboard'],
        summary: 'Project dashboard over the last 30 days',
        description:
          'Fixed 30-day window ending today (UTC). Run counts by status, results and rates, the pass-rate trend by day, the 10 ' +
          'flakiest and 10 most failing tests, and the runs running now. Takes no query parameters.',
        params: ProjectParams,
        querystring: DashboardQuery,
        response: { 200: Ok(DashboardSchema) },
      },
    },
    async (request) => {
      const d = await app.services.analytics.getDashboard({ projectId: request.params.projectId }, request.callOptions());
      return ok(dashboardToJson(d, runSnapshotToJson));
    },
  );
}
