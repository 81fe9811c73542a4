/**
 * GET /test-runs (spec §4.2: page, limit, start_date, end_date, both dates RFC 3339 and together; plus the web
 * app's optional exact filters branch, environment, status),
 * GET /test-runs/{runId} (include = errors, coverage, specs, artifacts, all) and GET /test-runs/{runId}/test-cases.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { FastifyInstance } from 'fastify';
import { AppError } from '@assay/errors';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { page, pageOf, pagination } from '@assay/contracts/common/pagination';
import {
  documentOf,
  includeOf,
  ListRunsQuery,
  ProjectParams,
  RunDetailQuery,
  RunParams,
  runSection,
  runSnapshotToJson,
  runStatus,
  RunTestCasesQuery,
  TestCaseSchema,
  TestRunDetailSchema,
  TestRunSchema,
  testStatus,
  type RunDetailSectionsJson,
  type TestCaseJson,
} from '@assay/contracts/runs/test-runs';
import { RUN_SECTIONS } from '@assay/contracts/runs/values';
import { Type } from '@sinclair/typebox';
import { sendJsonPage } from '../../json-page';
import { typed } from '../../typed';

const TAGS = ['Test Runs'];
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function rfc3339(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (!RFC3339.test(value) || Number.isNaN(d.getTime()))
    throw new AppError('VALIDATION_ERROR', `${name} must be an RFC 3339 timestamp`, {
      details: [{ path: `query.${name}`, message: 'must be an RFC 3339 timestamp (e.g. 2026-01-31T00:00:00Z)' }],
    });
  return d;
}

/** The period of `start_date`/`end_date`: both or neither, start not after end. */
function periodOf(q: { start_date?: string; end_date?: string }): { from?: Date; to?: Date } {
  if ((q.start_date === undefined) !== (q.end_date === undefined)) {
    const missing = q.start_date === undefined ? 'start_date' : 'end_date';
    throw new AppError('VALIDATION_ERROR', 'start_date and end_date are used together', {
      details: [{ path: `query.${missing}`, message: 'is required when the other date is given' }],
    });
  }
  const from = rfc3339(q.start_date, 'start_date');
  const to = rfc3339(q.end_date, 'end_date');
  if (from && to && from > to)
    throw new AppError('VALIDATION_ERROR', 'start_date must not be after end_date', {
      details: [{ path: 'query.start_date', message: 'must not be after end_date' }],
    });
  return { from, to };
}

export default async function testRunRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/test-runs',
    {
      schema: {
        tags: TAGS,
        summary: 'List automated test runs, newest first',
        description:
          '`page`, `limit`, `start_date` and `end_date` (RFC 3339, both or neither; runs that started in between), as spec §4.2 ' +
          'says; and, as an addition for the web app, optional exact filters `branch`, `environment` and `status`.',
        params: ProjectParams,
        querystring: ListRunsQuery,
        response: { 200: OkPage(Type.Ref(TestRunSchema)) },
      },
    },
    async (request, reply) => {
      const { page: p, limit } = pageOf(request.query);
      const { from, to } = periodOf(request.query);
      const { branch, environment, status } = request.query;
      const res = await app.services.runs.listRuns(
        {
          projectId: request.params.projectId,
          page: { page: p, limit },
          startTime: from ? timestampFromDate(from) : undefined,
          endTime: to ? timestampFromDate(to) : undefined,
          branch,
          environment,
          status: status === undefined ? undefined : runStatus.toProto(status),
          json: true,
        },
        request.callOptions(),
      );
      const info = pagination(p, limit, Number(res.page?.total ?? 0));
      // No bytes (not even `[]`): a runs service older than the `json` field (a rolling upgrade) answered `runs`.
      if (res.runsJson.length === 0) return page(res.runs.map(runSnapshotToJson), info);
      return sendJsonPage(reply, res.runsJson, info);
    },
  );

  app.get(
    '/:projectId/test-runs/:runId',
    {
      schema: {
        tags: TAGS,
        summary: 'One run with its detail sections',
        description: '`include` = comma list of errors, coverage, specs, artifacts, or all; sections appear only when included.',
        params: RunParams,
        querystring: RunDetailQuery,
        response: { 200: Ok(TestRunDetailSchema) },
      },
    },
    async (request) => {
      const { projectId, runId } = request.params;
      const include = includeOf(request.query.include, RUN_SECTIONS).map(runSection.toProto);
      const res = await app.services.runs.getRun({ projectId, runId, include }, request.callOptions());
      return ok({ ...runSnapshotToJson(res.run!), ...documentOf<RunDetailSectionsJson>(res.detail) });
    },
  );

  app.get(
    '/:projectId/test-runs/:runId/test-cases',
    {
      schema: {
        tags: TAGS,
        summary: 'Test results of a run, flattened',
        params: RunParams,
        querystring: RunTestCasesQuery,
        response: { 200: OkPage(Type.Ref(TestCaseSchema)) },
      },
    },
    async (request) => {
      const { projectId, runId } = request.params;
      const { page: p, limit } = pageOf(request.query);
      const { status } = request.query;
      const res = await app.services.runs.listRunTestCases(
        { projectId, runId, status: status === undefined ? undefined : testStatus.toProto(status), page: { page: p, limit } },
        request.callOptions(),
      );
      return page(res.testCases.map(documentOf<TestCaseJson>), pagination(p, limit, Number(res.page?.total ?? 0)));
    },
  );
}
