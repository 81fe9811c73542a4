/** GET /debug-bundle at run, suite or test scope (deepest id wins); `format=md` answers text/markdown, no envelope. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';

export default async function debugBundleRoutes(app: FastifyInstance) {
  app.get(
    '/:projectId/debug-bundle',
    {
      schema: {
        tags: ['Debug Bundle'],
        summary: 'Everything needed to debug a failure',
        description:
          'Run scope (`runId`): failing suites and deduplicated failing tests. Suite scope (`suiteId`, a spec id from the run detail `specs`): failing and flaky tests of the spec file. Test scope (`caseId`): error, steps, failureWindow, attempts, artifacts, trace, links, retryCommand. `format=md` answers `text/markdown` without the envelope.',
        params: Type.Object({ projectId: Type.String() }),
        querystring: Type.Object({
          runId: Type.Optional(Type.String()),
          suiteId: Type.Optional(Type.String()),
          caseId: Type.Optional(Type.String()),
          format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('md')], { default: 'json' })),
          maxLength: Type.Optional(Type.Integer({ minimum: 100, maximum: 100000, description: 'longest error text kept' })),
        }),
        response: {
          200: Type.Union([
            Ok(
              Type.Object(
                { scope: Type.Union([Type.Literal('run'), Type.Literal('suite'), Type.Literal('test')]) },
                { additionalProperties: true },
              ),
            ),
            Type.String({ description: 'format=md' }),
          ]),
        },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as { runId?: string; suiteId?: string; caseId?: string; format: 'json' | 'md'; maxLength?: number };
      const res = await app.services.runs.getDebugBundle(
        {
          projectId,
          runId: q.runId ?? '',
          suiteId: q.suiteId ?? '',
          caseId: q.caseId ?? '',
          format: q.format,
          maxLength: q.maxLength ?? 0,
        },
        request.callOptions(),
      );
      if (q.format === 'md') {
        reply.type('text/markdown; charset=utf-8');
        return reply.serializer((s: unknown) => String(s)).send(res.markdown);
      }
      return ok(res.bundle);
    },
  );
}
