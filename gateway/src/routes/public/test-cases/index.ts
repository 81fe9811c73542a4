/** GET /test-cases/history (offset pagination) and GET /test-cases/{caseId} (`include` = history or all). */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';
import { Limit, MAX_PAGE } from '@assay/contracts/common/pagination';
import { parseInclude } from '../test-runs';

const Free = Type.Object({}, { additionalProperties: true });

const TestCaseDetail = Type.Object(
  {
    id: Type.String(),
    metadata: Type.Object({ run: Free, test: Free }),
    overview: Type.Object(
      {
        status: Type.String(),
        outcome: Type.String(),
        expectedStatus: Type.String(),
        quarantined: Type.Boolean(),
        duration: Type.Integer(),
        retries: Type.Integer(),
        error: Type.Union([Free, Type.Null()]),
        attempts: Type.Array(Free),
        steps: Type.Array(Free),
        attachments: Type.Array(Free),
      },
      { additionalProperties: true },
    ),
    url: Type.String(),
    history: Type.Optional(
      Type.Object({
        summary: Type.Object({
          totalRuns: Type.Integer(),
          passed: Type.Integer(),
          failed: Type.Integer(),
          flaky: Type.Integer(),
          skipped: Type.Integer(),
          interrupted: Type.Integer(),
          stabilityScore: Type.Number({ description: 'passed / totalRuns × 100' }),
          lastPassed: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
          lastFailed: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
          lastFlaky: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
        }),
        recent: Type.Array(Free),
      }),
    ),
  },
  { title: 'TestCaseDetail' },
);

const OffsetPagination = Type.Object({
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  hasNext: Type.Boolean(),
  hasMore: Type.Boolean(),
});

export default async function testCaseRoutes(app: FastifyInstance) {
  const tags = ['Test Cases'];
  app.get(
    '/:projectId/test-cases/history',
    {
      schema: {
        tags,
        summary: 'Past results of one test, newest first',
        params: Type.Object({ projectId: Type.String() }),
        querystring: Type.Object({
          testId: Type.Optional(Type.String()),
          title: Type.Optional(Type.String({ description: 'full title (`describe › test`) or the test title' })),
          branch: Type.Optional(Type.String()),
          // Bounded like `page` (MAX_PAGE × 100): the services' offset fields are 32-bit.
          offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PAGE * 100, default: 0 })),
          limit: Type.Optional(Limit()),
        }),
        response: { 200: Type.Object({ success: Type.Literal(true), data: Type.Array(Free), pagination: OffsetPagination }) },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as { testId?: string; title?: string; branch?: string; offset: number; limit: number };
      const res = await app.services.runs.getTestCaseHistory(
        { projectId, testId: q.testId ?? '', title: q.title ?? '', branch: q.branch ?? '', offset: q.offset, limit: q.limit },
        request.callOptions(),
      );
      const total = Number(res.total);
      const hasNext = q.offset + res.items.length < total;
      return { success: true, data: res.items, pagination: { offset: q.offset, limit: q.limit, total, hasNext, hasMore: hasNext } };
    },
  );

  app.get(
    '/:projectId/test-cases/:caseId',
    {
      schema: {
        tags,
        summary: 'One test result: metadata, overview (status, error, duration, attempts, steps, attachments), url',
        params: Type.Object({ projectId: Type.String(), caseId: Type.String() }),
        querystring: Type.Object({ include: Type.Optional(Type.String({ description: 'history or all' })) }),
        response: { 200: Ok(TestCaseDetail) },
      },
    },
    async (request) => {
      const { projectId, caseId } = request.params as { projectId: string; caseId: string };
      const include = parseInclude((request.query as { include?: string }).include, ['history', 'all']);
      const res = await app.services.runs.getTestCase({ projectId, caseId, includeHistory: include.length > 0 }, request.callOptions());
      return ok(res.testCase);
    },
  );
}
