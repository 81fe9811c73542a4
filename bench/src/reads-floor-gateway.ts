/**
 * The gateway of the reads floor (bench/src/reads-floor.ts): the least a process in front of a service does. Per
 * request, with REDIS_URL, one round trip to Redis (a pipeline of a GET and an INCR: what a shared rate limit and
 * an auth cache need at the least; Assay's gateway sends its own in one write too), then either
 * - the request forwarded to UPSTREAM over kept-alive HTTP/1.1 (undici, the cheapest hop measured: docs/performance.md,
 *   "The hop alone costs little") and the answer's bytes sent back as they came; or
 * - with RUNS_RPC_URL, Assay's own runs service asked through the service kit's client, as the gateway asks it
 *   (`ListRuns` with `json`, the gateway's credential), and its page sent in the envelope the gateway writes (`pageJson`).
 * No authentication, no validation, no hooks, no logging.
 *
 *   UPSTREAM=http://127.0.0.1:… [REDIS_URL=redis://…] PORT=0 node bench/dist/reads-floor-gateway.js
 *   RUNS_RPC_URL=http://127.0.0.1:… INTERNAL_AUTH_TOKEN=… [REDIS_URL=…] PORT=0 node bench/dist/reads-floor-gateway.js
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { pageJson, pagination } from '@assay/contracts/common/pagination';
import { asPrincipal, createRpcClient } from '@assay/service-kit';

const upstream = process.env.UPSTREAM ? new Pool(process.env.UPSTREAM, { connections: 50 }) : undefined;
const runs = process.env.RUNS_RPC_URL
  ? createRpcClient(RunsService, { baseUrl: process.env.RUNS_RPC_URL, internalToken: process.env.INTERNAL_AUTH_TOKEN! })
  : undefined;
// The runs service reads no field of it for a list; the gateway sends one on every call.
const principal = asPrincipal({
  tokenId: 'floor',
  tokenType: 'api_key',
  userId: null,
  userName: null,
  userEmail: null,
  orgId: 'floor',
  role: null,
});
const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL) : undefined;

const server = http.createServer((req, res) => {
  void (async () => {
    try {
      if (redis)
        await redis
          .pipeline()
          .get(`floor:auth:${req.headers.authorization ?? ''}`)
          .incr('floor:requests')
          .exec();
      if (runs) {
        // /api/v1/public/{projectId}/test-runs?limit=…, the first page (as the bench asks it).
        const url = new URL(req.url!, 'http://floor');
        const projectId = url.pathname.split('/')[4]!;
        const limit = Number(url.searchParams.get('limit') ?? 10);
        const page = await runs.listRuns({ projectId, page: { page: 1, limit }, json: true }, principal);
        const body = pageJson(page.runsJson, pagination(1, limit, Number(page.page?.total ?? 0)));
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
        res.end(body);
        return;
      }
      const answer = await upstream!.request({ path: req.url!, method: 'GET' });
      const body = Buffer.from(await answer.body.arrayBuffer());
      res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type']), 'content-length': body.length });
      res.end(body);
    } catch {
      res.writeHead(502).end();
    }
  })();
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => {
  server.close();
  redis?.disconnect();
  void upstream?.close();
});
