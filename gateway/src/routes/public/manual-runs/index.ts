/**
 * Manual runs (spec §3, §4.4; CONTRACT §2): create (own rate bucket), update, close, get, list; and the
 * run's test cases: list and update (quick verdict or detailed result). Verdicts, statuses and selection modes
 * reach the service as proto enums (display forms of verdicts understood here).
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { defined, nullable, ProjectParams } from '@assay/contracts/common/json';
import { page, pageOf, pagination } from '@assay/contracts/common/pagination';
import { recordStatus, spelled, spelledIf, toProtoIf } from '@assay/contracts/manual-testing/common';
import {
  CreateManualRunBody,
  ManualRunSchema,
  ManualRunsQuery,
  RunCaseParams,
  RunCaseSchema,
  RunCasesQuery,
  runCaseToJson,
  RunParams,
  runToJson,
  selectionMode,
  UpdateManualRunBody,
  UpdateRunCaseBody,
  verdict,
} from '@assay/contracts/manual-testing/manual-runs';
import { typed } from '../../typed';

const TAGS = ['Manual Tests'];

export default async function manualRunRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.post(
    '/:projectId/manual-runs',
    {
      config: { idempotent: true, rateBucket: 'manualRunCreate' },
      schema: {
        tags: TAGS,
        summary: 'Create a manual run',
        params: ProjectParams,
        body: CreateManualRunBody,
        response: { 201: Ok(Type.Ref(ManualRunSchema)) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const res = await app.services.manualTesting.createManualRun(
        defined({
          projectId: request.params.projectId,
          name: b.name,
          note: b.note,
          environment: b.environment,
          releaseId: b.releaseId,
          state: b.state,
          selectionMode: toProtoIf(selectionMode, b.selectionMode),
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
        tags: TAGS,
        summary: 'List manual runs, newest first, with rollup counts per verdict',
        params: ProjectParams,
        querystring: ManualRunsQuery,
        response: { 200: OkPage(Type.Ref(ManualRunSchema)) },
      },
    },
    async (request) => {
      const p = pageOf(request.query);
      const res = await app.services.manualTesting.listManualRuns(
        defined({ projectId: request.params.projectId, page: p, status: toProtoIf(recordStatus, request.query.status) }),
        request.callOptions(),
      );
      return page(res.runs.map(runToJson), pagination(p.page, p.limit, Number(res.page?.total ?? 0)));
    },
  );

  app.get(
    '/:projectId/manual-runs/:runId',
    {
      schema: {
        tags: TAGS,
        summary: 'Get one manual run with its rollup counts per verdict',
        params: RunParams,
        response: { 200: Ok(Type.Ref(ManualRunSchema)) },
      },
    },
    async (request) => {
      const { projectId, runId } = request.params;
      const res = await app.services.manualTesting.getManualRun({ projectId, runId }, request.callOptions());
      return ok(runToJson(res.run!));
    },
  );

  app.patch(
    '/:projectId/manual-runs/:runId',
    {
      schema: {
        tags: TAGS,
        summary: 'Update or close (`status: closed`) a manual run; a closed run accepts only releaseId',
        params: RunParams,
        body: UpdateManualRunBody,
        response: { 200: Ok(Type.Ref(ManualRunSchema)) },
      },
    },
    async (request) => {
      const { projectId, runId } = request.params;
      const b = request.body;
      const res = await app.services.manualTesting.updateManualRun(
        defined({
          projectId,
          runId,
          name: b.name,
          note: b.note,
          environment: b.environment,
          releaseId: nullable(b.releaseId),
          state: b.state,
          selectionMode: toProtoIf(selectionMode, b.selectionMode),
          forecastValue: nullable(b.forecast),
          forecast: b.forecast ?? undefined,
          tags: b.tags ? { values: b.tags } : undefined,
          linkedIssues: b.linkedIssues ? { issues: b.linkedIssues } : undefined,
          links: b.links ? { links: b.links } : undefined,
          status: toProtoIf(recordStatus, b.status),
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
        tags: TAGS,
        summary: 'List the test cases of a manual run with their verdicts',
        params: RunParams,
        querystring: RunCasesQuery,
        response: { 200: OkPage(Type.Ref(RunCaseSchema)) },
      },
    },
    async (request) => {
      const { projectId, runId } = request.params;
      const q = request.query;
      const p = pageOf(q);
      const res = await app.services.manualTesting.listRunCases(
        defined({ projectId, runId, page: p, result: spelledIf(verdict, q.result), assignee: q.assignee }),
        request.callOptions(),
      );
      return page(res.runCases.map(runCaseToJson), pagination(p.page, p.limit, Number(res.page?.total ?? 0)));
    },
  );

  app.patch(
    '/:projectId/manual-runs/:runId/test-cases/:caseRef',
    {
      schema: {
        tags: TAGS,
        summary: 'Record a quick verdict or a detailed result for a test case of a manual run',
        params: RunCaseParams,
        body: UpdateRunCaseBody,
        response: { 200: Ok(Type.Ref(RunCaseSchema)) },
      },
    },
    async (request) => {
      const { projectId, runId, caseRef } = request.params;
      const b = request.body;
      const res = await app.services.manualTesting.updateRunCase(
        defined({
          projectId,
          runId,
          caseRef,
          assigneeUserId: nullable(b.assigneeUserId),
          result: spelledIf(verdict, b.result),
          status: spelledIf(verdict, b.status),
          elapsed: b.elapsed,
          comment: b.comment,
          linkedIssues: b.linkedIssues ? { issues: b.linkedIssues } : undefined,
          stepResults: b.stepResults
            ? { results: b.stepResults.map((s) => ({ order: s.order, status: spelled(verdict, s.status), comment: s.comment ?? '' })) }
            : undefined,
        }),
        request.callOptions(),
      );
      return ok(runCaseToJson(res.runCase!));
    },
  );
}
