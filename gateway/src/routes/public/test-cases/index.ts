/** GET /test-cases/history (offset pagination) and GET /test-cases/{caseId} (`include` = history or all). */
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';
import { DEFAULT_LIMIT } from '@assay/contracts/common/pagination';
import {
  CaseParams,
  CaseQuery,
  HistoryPage,
  HistoryQuery,
  offsetPagination,
  TestCaseDetailSchema,
  type HistoryItemJson,
  type TestCaseDetailJson,
} from '@assay/contracts/runs/test-cases';
import { documentOf, includeOf, ProjectParams } from '@assay/contracts/runs/test-runs';
import { TEST_CASE_SECTIONS } from '@assay/contracts/runs/values';
import { typed } from '../../typed';

const TAGS = ['Test Cases'];

export default async function testCaseRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/test-cases/history',
    {
      schema: {
        tags: TAGS,
        summary: 'Past results of one test, newest first',
        params: ProjectParams,
        querystring: HistoryQuery,
        response: { 200: HistoryPage },
      },
    },
    async (request) => {
      const { testId = '', title = '', branch = '', offset = 0, limit = DEFAULT_LIMIT } = request.query;
      const res = await app.services.runs.getTestCaseHistory(
        { projectId: request.params.projectId, testId, title, branch, offset, limit },
        request.callOptions(),
      );
      return {
        success: true as const,
        data: res.items.map(documentOf<HistoryItemJson>),
        pagination: offsetPagination(offset, limit, res.items.length, Number(res.total)),
      };
    },
  );

  app.get(
    '/:projectId/test-cases/:caseId',
    {
      schema: {
        tags: TAGS,
        summary: 'One test result: metadata, overview (status, error, duration, attempts, steps, attachments), url',
        params: CaseParams,
        querystring: CaseQuery,
        response: { 200: Ok(TestCaseDetailSchema) },
      },
    },
    async (request) => {
      const { projectId, caseId } = request.params;
      const includeHistory = includeOf(request.query.include, TEST_CASE_SECTIONS).includes('history');
      const res = await app.services.runs.getTestCase({ projectId, caseId, includeHistory }, request.callOptions());
      return ok(documentOf<TestCaseDetailJson>(res.testCase));
    },
  );
}
