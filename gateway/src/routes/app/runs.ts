/**
 * The web app's run list: GET /api/v1/app/projects/{projectId}/test-runs/{runId}/results, every result of a run
 * as a compact row with the run's spec files, in one answer (contract and reasons: @assay/contracts/runs/run-rows).
 * A project route like the public ones (a session or a bearer token; the project must be covered; a read).
 */
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';
import { RUN_ROWS_LIMIT, RunRowsParams, RunRowsSchema, runRowsToJson } from '@assay/contracts/runs/run-rows';
import { typed } from '../typed';

export default async function appRunRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/projects/:projectId/test-runs/:runId/results',
    {
      config: { auth: 'project' },
      schema: {
        tags: ['App'],
        summary: "Every result of a run as a compact row, with the run's spec files (the web app's run page)",
        description:
          `Rows in report order, at most ${RUN_ROWS_LIMIT} (\`total\` says how many the run has). App-only: the public ` +
          'GET /test-runs/{runId}/test-cases pages by 100.',
        params: RunRowsParams,
        response: { 200: Ok(RunRowsSchema) },
      },
    },
    async (request) => {
      const { projectId, runId } = request.params;
      const res = await app.services.runs.listRunRows({ projectId, runId, limit: RUN_ROWS_LIMIT }, request.callOptions());
      return ok(runRowsToJson(res));
    },
  );
}
