/**
 * Manual test cases (spec §2.3, §4.4; CONTRACT §2): create, update, get by `_id` or `TC-<n>`, list with
 * filters. Lists answer the exact §2.3 item; single reads and writes add flags, comments and issue keys.
 * Classification values and flags reach the service as proto enums (display forms understood here).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { defined, ProjectParams } from '@assay/contracts/common/json';
import { page, pageOf, pagination } from '@assay/contracts/common/pagination';
import {
  CaseDetailSchema,
  caseDetailToJson,
  CaseListItemSchema,
  CaseParams,
  CasesQuery,
  caseToJson,
  classificationToProto,
  CreateCaseBody,
  flagsToProto,
  stepToProto,
  UpdateCaseBody,
} from '@assay/contracts/manual-testing/manual-test-cases';
import { sendJsonPage } from '../../json-page';
import { typed } from '../../typed';

const TAGS = ['Manual Tests'];

export default async function manualTestCaseRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.post(
    '/:projectId/manual-test-cases',
    {
      config: { idempotent: true },
      schema: {
        tags: TAGS,
        summary: 'Create a manual test case',
        params: ProjectParams,
        body: CreateCaseBody,
        response: { 201: Ok(Type.Ref(CaseDetailSchema)) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const res = await app.services.manualTesting.createCase(
        defined({
          projectId: request.params.projectId,
          title: b.title,
          suiteName: b.suiteName,
          suiteId: b.suiteId,
          description: b.description,
          preconditions: b.preconditions,
          postconditions: b.postconditions,
          ...classificationToProto(b),
          steps: (b.steps ?? []).map(stepToProto),
          tags: b.tags,
          flags: flagsToProto(b.flags ?? []),
          customFields: b.customFields ?? {},
        }),
        request.callOptions(),
      );
      reply.code(201);
      return ok(caseDetailToJson(res.testCase!));
    },
  );

  app.get(
    '/:projectId/manual-test-cases',
    {
      schema: {
        tags: TAGS,
        summary: 'List manual test cases',
        params: ProjectParams,
        querystring: CasesQuery,
        response: { 200: OkPage(Type.Ref(CaseListItemSchema)) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const p = pageOf(q);
      const res = await app.services.manualTesting.listCases(
        defined({
          projectId: request.params.projectId,
          page: p,
          suiteId: q.suiteId,
          ...classificationToProto(q),
          tags: q.tags,
          search: q.search,
          json: true,
        }),
        request.callOptions(),
      );
      const info = pagination(p.page, p.limit, Number(res.page?.total ?? 0));
      // No bytes (not even `[]`): a manual-testing service older than the `json` field (a rolling upgrade) answered `test_cases`.
      if (res.testCasesJson.length === 0) return page(res.testCases.map(caseToJson), info);
      return sendJsonPage(reply, res.testCasesJson, info);
    },
  );

  app.get(
    '/:projectId/manual-test-cases/:caseId',
    {
      schema: {
        tags: TAGS,
        summary: 'Get one manual test case by `_id` or `TC-<n>`',
        params: CaseParams,
        response: { 200: Ok(Type.Ref(CaseDetailSchema)) },
      },
    },
    async (request) => {
      const { projectId, caseId } = request.params;
      const res = await app.services.manualTesting.getCase({ projectId, caseRef: caseId }, request.callOptions());
      return ok(caseDetailToJson(res.testCase!));
    },
  );

  app.patch(
    '/:projectId/manual-test-cases/:caseId',
    {
      schema: {
        tags: TAGS,
        summary: 'Update a manual test case (send only the fields to change)',
        params: CaseParams,
        body: UpdateCaseBody,
        response: { 200: Ok(Type.Ref(CaseDetailSchema)) },
      },
    },
    async (request) => {
      const { projectId, caseId } = request.params;
      const b = request.body;
      const res = await app.services.manualTesting.updateCase(
        defined({
          projectId,
          caseRef: caseId,
          title: b.title,
          name: b.name,
          description: b.description,
          preconditions: b.preconditions,
          postconditions: b.postconditions,
          ...classificationToProto(b),
          steps: b.steps ? { steps: b.steps.map(stepToProto) } : undefined,
          tags: b.tags,
          flags: b.flags ? { flags: flagsToProto(b.flags) } : undefined,
          customFields: b.customFields ? { values: b.customFields } : undefined,
          comments: b.comments ?? [],
          issues: b.issues ?? [],
        }),
        request.callOptions(),
      );
      return ok(caseDetailToJson(res.testCase!));
    },
  );
}
