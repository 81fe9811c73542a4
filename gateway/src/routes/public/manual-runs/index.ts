/**
 * Manual runs (spec §3, §4.4; CONTRACT §2): create (own rate bucket), update, close, get, list; and the
 * run's test cases: list and update (quick verdict or detailed result).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { PageQuery, page, pagination, type PageQueryValue } from '@assay/contracts/common/pagination';
import { defined, nullableString, ProjectParams } from '@assay/contracts/common/json';
import {
  CreateManualRunBody,
  ManualRunSchema,
  RunCaseSchema,
  runCaseToJson,
  runToJson,
  UpdateManualRunBody,
  UpdateRunCaseBody,
  type ManualRunBodyValue,
  type RunCaseBodyValue,
} from './schemas';

const RunParams = Type.Object({ projectId: Type.String(), runId: Type.String() });
const RunCaseParams = Type.Object({
  projectId: Type.String(),
  runId: Type.String(),
  caseRef: Type.String({ description: 'run-case id, case `_id` or `TC-<n>`' }),
});

export default async function manualRunRoutes(app: FastifyInstance) {
  app.post(
    '/:projectId/manual-runs',
    {
      config: { idempotent: true, rateBucket: 'manualRunCreate' },
      schema: {
        tags: ['Manual Tests'],
        summary: 'Create a manual run',
        params: ProjectParams,
        body: CreateManualRunBody,
        response: { 201: Ok(Type.Ref(ManualRunSchema)) },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params as { projectId: string };
      const b = request.body as ManualRunBodyValue;
      const res = await app.services.manualTesting.createManualRun(
        defined({
          projectId,
          name: b.name!,
          note: b.note,
          environment: b.environment,
          releaseId: b.releaseId ?? undefined,
          state: b.state,
          selectionMode: b.selectionMode,
          testCaseIds: b.testCaseIds ?? [],
          suiteIds: b.suiteIds ?? [],
          includeUnsorted: b.includeUnsorted,
          forecast: b.forecast,
          tags: b.tags ?? [],
          linkedIssues: b.linkedIssues ?? [],
          links: b.links ?? [],
        }),
        request.callOptions(),
      );
      reply.code(201);
      return ok(runToJson(res.run!));
    },
  );

  app.get(
    '/:projectId/manual-runs',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'List manual runs, newest first, with rollup counts per verdict',
        params: ProjectParams,
        querystring: Type.Object({
          ...PageQuery(),
          status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
        }),
        response: { 200: OkPage(Type.Ref(ManualRunSchema)) },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as PageQueryValue & { status?: string };
      const res = await app.services.manualTesting.listManualRuns(
        defined({ projectId, page: { page: q.page, limit: q.limit }, status: q.status }),
        request.callOptions(),
      );
      return page(res.runs.map(runToJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );

  app.get(
    '/:projectId/manual-runs/:runId',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'Get one manual run with its rollup counts per verdict',
        params: RunParams,
        response: { 200: Ok(Type.Ref(ManualRunSchema)) },
      },
    },
    async (request) => {
      const { projectId, runId } = request.params as { projectId: string; runId: string };
      const res = await app.services.manualTesting.getManualRun({ projectId, runId }, request.callOptions());
      return ok(runToJson(res.run!));
    },
  );

  app.patch(
    '/:projectId/manual-runs/:runId',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'Update or close (`status: closed`) a manual run; a closed run accepts only releaseId',
        params: RunParams,
        body: UpdateManualRunBody,
        response: { 200: Ok(Type.Ref(ManualRunSchema)) },
      },
    },
    async (request) => {
      const { projectId, runId } = request.params as { projectId: string; runId: string };
      const b = request.body as ManualRunBodyValue;
      const res = await app.services.manualTesting.updateManualRun(
        defined({
          projectId,
          runId,
          name: b.name,
          note: b.note,
          environment: b.environment,
          releaseId: nullableString(b.releaseId),
          state: b.state,
          selectionMode: b.selectionMode,
          forecast: b.forecast,
          tags: b.tags ? { values: b.tags } : undefined,
          linkedIssues: b.linkedIssues ? { issues: b.linkedIssues } : undefined,
          links: b.links ? { links: b.links } : undefined,
          status: b.status,
        }),
        request.callOptions(),
      );
      return ok(runToJson(res.run!));
    },
  );

  app.get(
    '/:projectId/manual-runs/:runId/test-cases',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'List the test cases of a manual run with their verdicts',
        params: RunParams,
        querystring: Type.Object({
          ...PageQuery(),
          result: Type.Optional(Type.String({ description: 'untested, passed, failed, blocked, skipped, retest' })),
          assignee: Type.Optional(Type.String({ description: 'user id or e-mail of the assignee; `none` for unassigned cases' })),
        }),
        response: { 200: OkPage(Type.Ref(RunCaseSchema)) },
      },
    },
    async (request) => {
      const { projectId, runId } = request.params as { projectId: string; runId: string };
      const q = request.query as PageQueryValue & { result?: string; assignee?: string };
      const res = await app.services.manualTesting.listRunCases(
        defined({ projectId, runId, page: { page: q.page, limit: q.limit }, result: q.result, assignee: q.assignee }),
        request.callOptions(),
      );
      return page(res.runCases.map(runCaseToJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );

  app.patch(
    '/:projectId/manual-runs/:runId/test-cases/:caseRef',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'Record a quick verdict or a detailed result for a test case of a manual run',
        params: RunCaseParams,
        body: UpdateRunCaseBody,
        response: { 200: Ok(Type.Ref(RunCaseSchema)) },
      },
    },
    async (request) => {
      const { projectId, runId, caseRef } = request.params as { projectId: string; runId: string; caseRef: string };
      const b = request.body as RunCaseBodyValue;
      const res = await app.services.manualTesting.updateRunCase(
        defined({
          projectId,
          runId,
          caseRef,
          assigneeUserId: nullableString(b.assigneeUserId),
          result: b.result,
          status: b.status,
          elapsed: b.elapsed,
          comment: b.comment,
          linkedIssues: b.linkedIssues ? { issues: b.linkedIssues } : undefined,
          stepResults: b.stepResults
            ? { results: b.stepResults.map((s) => ({ order: s.order, status: s.status, comment: s.comment ?? '' })) }
            : undefined,
        }),
        request.callOptions(),
      );
      return ok(runCaseToJson(res.runCase!));
    },
  );
}
