/** GET /debug-bundle at run, suite or test scope (deepest id wins); `format=md` answers text/markdown, no envelope. */
import type { FastifyInstance } from 'fastify';
import { ok } from '@assay/contracts/common/envelope';
import { bundleFormat, DebugBundleAnswer, DebugBundleQuery, type BundleJson } from '@assay/contracts/runs/debug-bundle';
import { documentOf, ProjectParams } from '@assay/contracts/runs/test-runs';
import { typed } from '../../typed';

export default async function debugBundleRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/debug-bundle',
    {
      schema: {
        tags: ['Debug Bundle'],
        summary: 'Everything needed to debug a failure',
        description:
          'Run scope (`runId`): failing suites and deduplicated failing tests. Suite scope (`suiteId`, a spec id from the run detail `specs`): failing and flaky tests of the spec file. Test scope (`caseId`): error, steps, failureWindow, attempts, artifacts, trace, links, retryCommand. `format=md` answers `text/markdown` without the envelope.',
        params: ProjectParams,
        querystring: DebugBundleQuery,
        response: { 200: DebugBundleAnswer },
      },
    },
    async (request, reply) => {
      const { runId = '', suiteId = '', caseId = '', format = 'json', maxLength = 0 } = request.query;
      const res = await app.services.runs.getDebugBundle(
        { projectId: request.params.projectId, runId, suiteId, caseId, format: bundleFormat.toProto(format), maxLength },
        request.callOptions(),
      );
      if (format === 'md') {
        reply.type('text/markdown; charset=utf-8');
        return reply.serializer((s: unknown) => String(s)).send(res.markdown);
      }
      return ok(documentOf<BundleJson>(res.bundle));
    },
  );
}
