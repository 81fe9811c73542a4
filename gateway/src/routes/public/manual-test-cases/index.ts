/**
 * Manual test cases (spec §2.3, §4.4; CONTRACT §2): create, update, get by `_id` or `TC-<n>`, list with
 * filters. Lists answer the exact §2.3 item; single reads and writes add flags, comments and issue keys.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { StepInput } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { PageQuery, page, pagination, type PageQueryValue } from '@assay/contracts/common/pagination';
import { defined, ProjectParams } from '@assay/contracts/common/json';
import {
  CaseDetailSchema,
  CaseListItemSchema,
  CaseListQuery,
  caseDetailToJson,
  caseToJson,
  CreateCaseBody,
  stepToProto,
  UpdateCaseBody,
  type CaseBodyValue,
} from './schemas';

const CaseParams = Type.Object({
  projectId: Type.String(),
  caseId: Type.String({ description: 'the case `_id` or its human number (`TC-12`)' }),
});

type CaseListQueryValue = PageQueryValue & Partial<Record<keyof typeof CaseListQuery, string>>;

export default async function manualTestCaseRoutes(app: FastifyInstance) {
  app.post(
    '/:projectId/manual-test-cases',
    {
      config: { idempotent: true },
      schema: {
        tags: ['Manual Tests'],
        summary: 'Create a manual test case',
        params: ProjectParams,
        body: CreateCaseBody,
        response: { 201: Ok(Type.Ref(CaseDetailSchema)) },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params as { projectId: string };
      const b = request.body as CaseBodyValue;
      const res = await app.services.manualTesting.createCase(
        defined({
          projectId,
          title: b.title!,
          suiteName: b.suiteName,
          suiteId: b.suiteId,
          description: b.description,
          preconditions: b.preconditions,
          postconditions: b.postconditions,
          status: b.status,
          testStepsDeclarationType: b.testStepsDeclarationType,
          steps: (b.steps ?? []).map(stepToProto) as StepInput[],
          priority: b.priority,
          severity: b.severity,
          type: b.type,
          layer: b.layer,
          behavior: b.behavior,
          automationStatus: b.automationStatus,
          tags: b.tags,
          flags: b.flags ?? [],
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
        tags: ['Manual Tests'],
        summary: 'List manual test cases',
        params: ProjectParams,
        querystring: Type.Object({ ...PageQuery(), ...CaseListQuery }),
        response: { 200: OkPage(Type.Ref(CaseListItemSchema)) },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as CaseListQueryValue;
      const res = await app.services.manualTesting.listCases(
        defined({
          projectId,
          page: { page: q.page, limit: q.limit },
          suiteId: q.suiteId,
          status: q.status,
          priority: q.priority,
          severity: q.severity,
          type: q.type,
          layer: q.layer,
          behavior: q.behavior,
          automationStatus: q.automationStatus,
          tags: q.tags,
          search: q.search,
        }),
        request.callOptions(),
      );
      return page(res.testCases.map(caseToJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );

  app.get(
    '/:projectId/manual-test-cases/:caseId',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'Get one manual test case by `_id` or `TC-<n>`',
        params: CaseParams,
        response: { 200: Ok(Type.Ref(CaseDetailSchema)) },
      },
    },
    async (request) => {
      const { projectId, caseId } = request.params as { projectId: string; caseId: string };
      const res = await app.services.manualTesting.getCase({ projectId, caseRef: caseId }, request.callOptions());
      return ok(caseDetailToJson(res.testCase!));
    },
  );

  app.patch(
    '/:projectId/manual-test-cases/:caseId',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'Update a manual test case (send only the fields to change)',
        params: CaseParams,
        body: UpdateCaseBody,
        response: { 200: Ok(Type.Ref(CaseDetailSchema)) },
      },
    },
    async (request) => {
      const { projectId, caseId } = request.params as { projectId: string; caseId: string };
      const b = request.body as CaseBodyValue;
      const res = await app.services.manualTesting.updateCase(
        defined({
          projectId,
          caseRef: caseId,
          title: b.title,
          name: b.name,
          description: b.description,
          preconditions: b.preconditions,
          postconditions: b.postconditions,
          status: b.status,
          testStepsDeclarationType: b.testStepsDeclarationType,
          steps: b.steps ? { steps: b.steps.map(stepToProto) as StepInput[] } : undefined,
          priority: b.priority,
          severity: b.severity,
          type: b.type,
          layer: b.layer,
          behavior: b.behavior,
          automationStatus: b.automationStatus,
          tags: b.tags,
          flags: b.flags ? { values: b.flags } : undefined,
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
