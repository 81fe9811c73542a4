/**
 * The gateway of the reads floor (bench/src/reads-floor.ts): the least a process in front of a service does. Per
 * request, with REDIS_URL, one round trip to Redis (a pipeline of a GET and an INCR: what a shared rate limit and
 * an auth cache need at the least; Assay's gateway sends its own in one write too), then the request forwarded to
 * UPSTREAM over kept-alive HTTP/1.1 (undici, the cheapest hop measured: docs/performance.md, "The hop alone costs little") and
 * the answer's bytes sent back as they came. No authentication, no validation, no envelope of its own.
 *
 *   UPSTREAM=http://127.0.0.1:… [REDIS_URL=redis://…] PORT=0 node bench/dist/reads-floor-gateway.js
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { Pool } from 'undici';

const upstream = new Pool(process.env.UPSTREAM!, { connections: 50 });
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
      const answer = await upstream.request({ path: req.url!, method: 'GET' });
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
  void upstream.close();
});
