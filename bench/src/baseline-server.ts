/**
 * The single-process baseline of the reads benchmark (bench/src/reads.ts): one Fastify + pg process that runs the
 * services' own SQL and mapping (imported from their dist) on the same database and answers the same JSON through
 * the same response schemas, with nothing in between — no gateway, no RPC, no protobuf on the wire, no
 * authentication. What Assay spends above it is the architecture's cost. Routes: test-runs (runs' `listRuns`),
 * manual-test-cases (manual-testing's `listCases` + `linkedTestsOf`), analytics/summary (analytics' `projectState`
 * + `summaryOf`; no answer cache, as the bench runs the service without one).
 *
 *   DATABASE_URL=… PORT=… node bench/dist/baseline-server.js
 */
import Fastify from 'fastify';
import { createPool } from '@assay/db';
import { Ok, OkPage, ok, Pagination } from '@assay/contracts/common/envelope';
import { page, pagination } from '@assay/contracts/common/pagination';
import { runSnapshotToJson, TestRunSchema, TestStatsSchema } from '@assay/contracts/runs/test-runs';
import { CaseListItemSchema, ClassicStepSchema, GherkinStepSchema, caseToJson } from '@assay/contracts/manual-testing/manual-test-cases';
import { SummarySchema, summaryToJson } from '@assay/contracts/analytics/analytics';
import { AnalyticsBreakdownSchema, AnalyticsDaySchema, AnalyticsTestSchema } from '@assay/contracts/analytics/figures';
import { listRuns } from '@assay/runs/dist/store/test-runs';
import { Links, toSnapshot } from '@assay/runs/dist/domain/snapshot';
import { linkedTestsOf, listCases } from '@assay/manual-testing/dist/store/manual-test-cases';
import { toTestCase } from '@assay/manual-testing/dist/handlers/manual-test-cases';
import { projectState } from '@assay/analytics/dist/store/windows';
import { summaryOf } from '@assay/analytics/dist/handlers/analytics';
import { windowDays } from '@assay/analytics/dist/domain/days';
import { Type } from '@sinclair/typebox';

type PageQuery = { Params: { projectId: string }; Querystring: { limit?: string; page?: string } };
const pageOf = (q: { limit?: string; page?: string }) => {
  const limit = Number(q.limit ?? 10);
  const p = Number(q.page ?? 1);
  return { limit, page: p, offset: (p - 1) * limit };
};

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL!;
  const pool = (schema: string) => createPool({ connectionString: url, schema, max: 10, applicationName: 'baseline' });
  const [runsDb, manualDb, analyticsDb] = [pool('runs'), pool('manual_testing'), pool('analytics')];
  const links = new Links(process.env.PUBLIC_UI_URL ?? 'http://127.0.0.1');
  const app = Fastify({ logger: false });
  // The shapes the gateway registers for these routes (gateway/src/schemas/components.ts).
  for (const schema of [
    Pagination,
    TestStatsSchema,
    TestRunSchema,
    ClassicStepSchema,
    GherkinStepSchema,
    CaseListItemSchema,
    AnalyticsTestSchema,
    AnalyticsDaySchema,
    AnalyticsBreakdownSchema,
  ])
    app.addSchema(schema);

  app.get<PageQuery>(
    '/api/v1/public/:projectId/test-runs',
    { schema: { response: { 200: OkPage(Type.Ref(TestRunSchema)) } } },
    async (request) => {
      const q = pageOf(request.query);
      const res = await listRuns(runsDb, request.params.projectId, { limit: q.limit, offset: q.offset });
      const now = new Date();
      return page(
        res.rows.map((r) => runSnapshotToJson(toSnapshot(r, links, now))),
        pagination(q.page, q.limit, res.total),
      );
    },
  );

  app.get<PageQuery>(
    '/api/v1/public/:projectId/manual-test-cases',
    { schema: { response: { 200: OkPage(Type.Ref(CaseListItemSchema)) } } },
    async (request) => {
      const q = pageOf(request.query);
      const { rows, total } = await listCases(manualDb, request.params.projectId, {}, q.limit, q.offset);
      const linked = await linkedTestsOf(
        manualDb,
        rows.map((r) => r.id),
      );
      return page(
        rows.map((r) =>
          caseToJson(
            toTestCase(
              r,
              linked.filter((l) => l.caseId === r.id),
            ),
          ),
        ),
        pagination(q.page, q.limit, total),
      );
    },
  );

  app.get<{ Params: { projectId: string }; Querystring: { days?: string } }>(
    '/api/v1/public/:projectId/analytics/summary',
    { schema: { response: { 200: Ok(SummarySchema) } } },
    async (request) => {
      const days = windowDays(Number(request.query.days ?? 0));
      const state = await projectState(analyticsDb, request.params.projectId);
      if (!state) throw new Error('no read model for this project');
      return ok(summaryToJson(await summaryOf(analyticsDb, state.key, days, state.asOf - days + 1, state.asOf), days));
    },
  );

  await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  process.stdout.write(`listening ${(app.server.address() as { port: number }).port}\n`);
  process.once('SIGTERM', () => void Promise.all([app.close(), runsDb.end(), manualDb.end(), analyticsDb.end()]));
}

void main();
