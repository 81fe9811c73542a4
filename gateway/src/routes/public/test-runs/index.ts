/**
 * GET /test-runs (spec §4.2: only page, limit, start_date, end_date; both dates RFC 3339 and together),
 * GET /test-runs/{runId} (include = errors, coverage, specs, artifacts, all) and GET /test-runs/{runId}/test-cases.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AppError } from '@assay/errors';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { PageQuery, page, pagination, type PageQueryValue } from '@assay/contracts/common/pagination';
import { runSnapshotToJson } from '@assay/api-shapes';
import { TestCaseSchema, TestRunDetailSchema, TestRunSchema } from './schemas';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const INCLUDES = ['errors', 'coverage', 'specs', 'artifacts', 'all'];

function rfc3339(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (!RFC3339.test(value) || Number.isNaN(d.getTime()))
    throw new AppError('VALIDATION_ERROR', `${name} must be an RFC 3339 timestamp`, {
      details: [{ path: `query.${name}`, message: 'must be an RFC 3339 timestamp (e.g. 2026-01-31T00:00:00Z)' }],
    });
  return d;
}

export function parseInclude(raw: string | undefined, allowed: string[]): string[] {
  const items = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = items.find((i) => !allowed.includes(i));
  if (bad)
    throw new AppError('VALIDATION_ERROR', `include: unknown value "${bad}"`, {
      details: [{ path: 'query.include', message: `each value must be one of ${allowed.join(', ')}` }],
    });
  return items;
}

export default async function testRunRoutes(app: FastifyInstance) {
  const tags = ['Test Runs'];
  app.get(
    '/:projectId/test-runs',
    {
      schema: {
        tags,
        summary: 'List automated test runs, newest first',
        description: 'Only `page`, `limit`, `start_date` and `end_date` (RFC 3339, both or neither; runs that started in between).',
        params: Type.Object({ projectId: Type.String() }),
        querystring: Type.Object({
          ...PageQuery(),
          start_date: Type.Optional(Type.String({ description: 'RFC 3339; requires end_date' })),
          end_date: Type.Optional(Type.String({ description: 'RFC 3339; requires start_date' })),
        }),
        response: { 200: OkPage(Type.Ref(TestRunSchema)) },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as PageQueryValue & { start_date?: string; end_date?: string };
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
      const res = await app.services.runs.listRuns(
        {
          projectId,
          page: { page: q.page, limit: q.limit },
          startTime: from ? timestampFromDate(from) : undefined,
          endTime: to ? timestampFromDate(to) : undefined,
        },
        request.callOptions(),
      );
      return page(res.runs.map(runSnapshotToJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );

  app.get(
    '/:projectId/test-runs/:runId',
    {
      schema: {
        tags,
        summary: 'One run with its detail sections',
        description: '`include` = comma list of errors, coverage, specs, artifacts, or all; sections appear only when included.',
        params: Type.Object({ projectId: Type.String(), runId: Type.String() }),
        querystring: Type.Object({ include: Type.Optional(Type.String()) }),
        response: { 200: Ok(TestRunDetailSchema) },
      },
    },
    async (request) => {
      const { projectId, runId } = request.params as { projectId: string; runId: string };
      const include = parseInclude((request.query as { include?: string }).include, INCLUDES);
      const res = await app.services.runs.getRun({ projectId, runId, include }, request.callOptions());
      return ok({ ...runSnapshotToJson(res.run!), ...(res.detail ?? {}) });
    },
  );

  app.get(
    '/:projectId/test-runs/:runId/test-cases',
    {
      schema: {
        tags,
        summary: 'Test results of a run, flattened',
        params: Type.Object({ projectId: Type.String(), runId: Type.String() }),
        querystring: Type.Object({
          ...PageQuery(),
          status: Type.Optional(
            Type.Union(['passed', 'failed', 'flaky', 'skipped', 'timedOut', 'interrupted'].map((s) => Type.Literal(s))),
          ),
        }),
        response: { 200: OkPage(Type.Ref(TestCaseSchema)) },
      },
    },
    async (request) => {
      const { projectId, runId } = request.params as { projectId: string; runId: string };
      const q = request.query as PageQueryValue & { status?: string };
      const res = await app.services.runs.listRunTestCases(
        { projectId, runId, status: q.status ?? '', page: { page: q.page, limit: q.limit } },
        request.callOptions(),
      );
      return page(res.testCases, pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );
}
