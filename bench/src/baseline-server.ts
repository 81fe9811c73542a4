/**
 * The single-process baseline of the reads benchmark (bench/src/reads.ts): one Fastify + pg process that runs the
 * runs service's own SQL (`listRuns`) on the same database and answers the same JSON through the same response
 * schema, with nothing in between — no gateway, no RPC, no protobuf on the wire, no authentication. What Assay
 * spends above it is the architecture's cost.
 *
 *   DATABASE_URL=… PORT=… node bench/dist/baseline-server.js
 */
import Fastify from 'fastify';
import { createPool } from '@assay/db';
import { OkPage, Pagination } from '@assay/contracts/common/envelope';
import { page, pagination } from '@assay/contracts/common/pagination';
import { runSnapshotToJson, TestRunSchema, TestStatsSchema } from '@assay/contracts/runs/test-runs';
import { listRuns } from '@assay/runs/dist/store/test-runs';
import { Links, toSnapshot } from '@assay/runs/dist/domain/snapshot';
import { Type } from '@sinclair/typebox';

async function main(): Promise<void> {
  const pool = createPool({ connectionString: process.env.DATABASE_URL!, schema: 'runs', max: 10, applicationName: 'baseline' });
  const links = new Links(process.env.PUBLIC_UI_URL ?? 'http://127.0.0.1');
  const app = Fastify({ logger: false });
  // The shapes the gateway registers for these routes (gateway/src/schemas/components.ts).
  for (const schema of [Pagination, TestStatsSchema, TestRunSchema]) app.addSchema(schema);
  app.get<{ Params: { projectId: string }; Querystring: { limit?: string; page?: string } }>(
    '/api/v1/public/:projectId/test-runs',
    { schema: { response: { 200: OkPage(Type.Ref(TestRunSchema)) } } },
    async (request) => {
      const limit = Number(request.query.limit ?? 10);
      const p = Number(request.query.page ?? 1);
      const res = await listRuns(pool, request.params.projectId, { limit, offset: (p - 1) * limit });
      const now = new Date();
      return page(
        res.rows.map((r) => runSnapshotToJson(toSnapshot(r, links, now))),
        pagination(p, limit, res.total),
      );
    },
  );
  await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  process.stdout.write(`listening ${(app.server.address() as { port: number }).port}\n`);
  process.once('SIGTERM', () => void app.close().then(() => pool.end()));
}

void main();
