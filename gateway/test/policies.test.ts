/**
 * The gateway policies on routes that do not exist yet: an in-process gateway (buildApp, real Postgres of the
 * test system, a private Redis) plus probe routes registered after it, declaring only route config — as a
 * future route family would. Covers the extra rate buckets (manual run creation, PDF, ingestion), the
 * ingestion body limit rule, idempotency while in flight, after a crash (lease) and after a 5xx, and which
 * routes are idempotent by default.
 */
import type { AddressInfo, Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { connectRedis } from '../src/redis';
import { AppError } from '@assay/errors';
import { issueSecret } from '@assay/contracts/identity/tokens';
import { createLogger } from '@assay/logger';
import { startPrivateRedis, testAdmin, testSystem, waitUntil, type PrivateRedis, type Tenant } from '@assay/testkit';
import { buildApp } from '../src/app';
import { loadGatewayConfig } from '../src/config';
import { Authenticator } from '../src/auth/authenticator';
import { createServiceClients } from '../src/plugins/app/services';

const INGEST_LIMIT = 2 * 1024 * 1024;
const LEASE_MS = 400;

let app: FastifyInstance;
let redisServer: PrivateRedis;
let redis: Redis;
let t: Tenant;

// A gate a probe handler waits on, so a test decides when "the first request" finishes.
let gates: (() => void)[] = [];
const waitForGate = () => new Promise<void>((resolve) => gates.push(resolve));
const openGates = () => {
  const g = gates;
  gates = [];
  g.forEach((resolve) => resolve());
};
let handlerRuns = 0;
let flakyFailures = 0;

beforeAll(async () => {
  const s = testSystem();
  redisServer = await startPrivateRedis();
  const config = loadGatewayConfig({
    REDIS_URL: redisServer.url,
    INTERNAL_AUTH_TOKEN: s.credentials.gateway,
    IDENTITY_URL: `http://127.0.0.1:${s.ports.services.identity!.rpcPort}`,
    MANUAL_TESTING_URL: `http://127.0.0.1:${s.ports.services['manual-testing']!.rpcPort}`,
    INGEST_BODY_LIMIT_BYTES: String(INGEST_LIMIT),
    TRUSTED_PROXY_HOPS: '1',
    LOG_LEVEL: 'silent',
  });
  const logger = createLogger('gateway', 'silent');
  redis = connectRedis(config.REDIS_URL);
  redis.on('error', () => undefined);
  await new Promise((resolve) => redis.once('ready', resolve));
  const clients = createServiceClients(config);
  app = await buildApp({
    config,
    logger,
    redis,
    authenticator: new Authenticator(clients.auth, redis, config.AUTH_CACHE_TTL_SECONDS, logger),
    clients,
    healthClients: {},
    idempotencyLeaseMs: LEASE_MS,
  });

  // Probe routes: only route config, exactly as a future family declares it.
  const params = { type: 'object', properties: { projectId: { type: 'string' } }, required: ['projectId'] };
  const nameBody = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };
  const created = { type: 'object', properties: { success: { type: 'boolean' }, data: { type: 'object', additionalProperties: true } } };
  await app.register(async (scope) => {
    scope.post(
      '/api/v1/public/:projectId/probe-manual-runs',
      { config: { auth: 'project', rateBucket: 'manualRunCreate' }, schema: { params, body: nameBody, response: { 201: created } } },
      async (_req, reply) => reply.code(201).send({ success: true, data: { n: ++handlerRuns } }),
    );
    scope.get('/api/v1/public/:projectId/probe-pdf', { config: { auth: 'project', rateBucket: 'pdf' } }, async () => ({ success: true }));
    scope.get('/api/v1/public/:projectId/probe-read', { config: { auth: 'project' } }, async () => ({ success: true }));
    scope.post('/api/v1/ingest/:projectId/probe-upload', { config: { auth: 'project', access: 'ingest' } }, async (req) => ({
      success: true,
      data: { bytes: JSON.stringify(req.body).length },
    }));
    scope.post('/api/reports/probe-compat', { config: { auth: 'token', rateBucket: 'ingest' } }, async () => ({ success: true }));
    scope.post(
      '/api/v1/public/:projectId/probe-slow',
      { config: { auth: 'project' }, schema: { params, body: nameBody, response: { 201: created } } },
      async (req, reply) => {
        const n = ++handlerRuns;
        // A crashed gateway stops renewing its lease; this is how a test makes a live request behave like one.
        if (req.headers['x-simulate-crash']) req.idempotency?.stopRenewal();
        await waitForGate();
        return reply.code(201).send({ success: true, data: { n, name: (req.body as { name: string }).name } });
      },
    );
    scope.post(
      '/api/v1/public/:projectId/probe-flaky',
      { config: { auth: 'project' }, schema: { params, body: nameBody, response: { 201: created } } },
      async (_req, reply) => {
        const n = ++handlerRuns;
        if (flakyFailures-- > 0) throw new AppError('SERVICE_UNAVAILABLE');
        return reply.code(201).send({ success: true, data: { n } });
      },
    );
    scope.post('/api/v1/public/:projectId/probe-action', { config: { auth: 'project' }, schema: { params, body: nameBody } }, async () => ({
      success: true,
      data: { n: ++handlerRuns },
    }));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  t = await testAdmin().tenant('owner');
});

afterAll(async () => {
  openGates();
  await app?.close();
  redis?.disconnect();
  await redisServer?.remove();
});

let ipCounter = 0;
/** Each test its own client IP, so the per-IP bucket (200) never interferes. */
const freshIp = () => `198.51.100.${++ipCounter}`;

let baseUrl: string;

interface Res {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** A real HTTP request; the client IP reaches the gateway through one trusted proxy hop (X-Forwarded-For). */
async function call(
  method: 'GET' | 'POST',
  url: string,
  opts: { body?: unknown; raw?: string; headers?: Record<string, string>; ip?: string; token?: string } = {},
): Promise<Res> {
  const res = await fetch(`${baseUrl}${url.replace(':p', t.projectId)}`, {
    method,
    headers: {
      authorization: `Bearer ${opts.token ?? t.token}`,
      'x-forwarded-for': opts.ip ?? freshIp(),
      ...(opts.body !== undefined || opts.raw !== undefined ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}
const limits = (res: Res) => ({
  limit: Number(res.headers['ratelimit-limit']),
  remaining: Number(res.headers['ratelimit-remaining']),
  reset: Number(res.headers['ratelimit-reset']),
});
const code = (res: { body: string }) => (JSON.parse(res.body) as { error?: { code: string } }).error?.code;

describe('extra rate-limit buckets declared by route config', () => {
  it('manualRunCreate: 10 per minute per token, on top of writes; headers report the tighter bucket', async () => {
    const tenant = await testAdmin().tenant('owner');
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await call('POST', `/api/v1/public/${tenant.projectId}/probe-manual-runs`, {
        body: { name: `r${i}` },
        token: tenant.token,
      });
      expect(res.statusCode).toBe(201);
      expect(limits(res).limit).toBe(10);
      seen.push(limits(res).remaining);
    }
    expect(seen).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const over = await call('POST', `/api/v1/public/${tenant.projectId}/probe-manual-runs`, { body: { name: 'r11' }, token: tenant.token });
    expect(over.statusCode).toBe(429);
    expect(code(over)).toBe('RATE_LIMIT_EXCEEDED');
    expect(limits(over)).toMatchObject({ limit: 10, remaining: 0 });
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
    // the 11 requests also counted as writes (60), and reads are untouched (100)
    const write = await call('POST', `/api/v1/public/${tenant.projectId}/probe-action`, { body: { name: 'x' }, token: tenant.token });
    expect(limits(write)).toMatchObject({ limit: 60, remaining: 60 - 12 });
    const read = await call('GET', `/api/v1/public/${tenant.projectId}/token-info`, { token: tenant.token });
    expect(limits(read)).toMatchObject({ limit: 100, remaining: 99 });
  });

  it('pdf: 1 per minute per token; the second gets 429 with Retry-After and RateLimit-Remaining 0', async () => {
    const tenant = await testAdmin().tenant('owner');
    const first = await call('GET', `/api/v1/public/${tenant.projectId}/probe-pdf`, { token: tenant.token });
    expect(first.statusCode).toBe(200);
    expect(limits(first)).toMatchObject({ limit: 1, remaining: 0 });
    expect(limits(first).reset).toBeGreaterThan(0);
    expect(limits(first).reset).toBeLessThanOrEqual(60);
    const second = await call('GET', `/api/v1/public/${tenant.projectId}/probe-pdf`, { token: tenant.token });
    expect(second.statusCode).toBe(429);
    expect(code(second)).toBe('RATE_LIMIT_EXCEEDED');
    expect(limits(second)).toMatchObject({ limit: 1, remaining: 0 });
    expect(second.headers['retry-after']).toMatch(/^\d+$/);
    expect(Number(second.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // another token has its own PDF budget
    const other = await testAdmin().tenant('owner');
    expect((await call('GET', `/api/v1/public/${other.projectId}/probe-pdf`, { token: other.token })).statusCode).toBe(200);
  });

  it('ingest: routes under /api/v1/ingest count in the ingest bucket (600) instead of reads/writes', async () => {
    const tenant = await testAdmin().tenant('owner');
    const url = `/api/v1/ingest/${tenant.projectId}/probe-upload`;
    const first = await call('POST', url, { body: { results: [] }, token: tenant.token });
    expect(first.statusCode).toBe(200);
    expect(limits(first)).toMatchObject({ limit: 600, remaining: 599 });
    for (let i = 0; i < 599; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, 599 - i) }, () => call('POST', url, { body: { results: [] }, token: tenant.token })),
      );
      expect(batch.map((r) => r.statusCode).every((s) => s === 200)).toBe(true);
    }
    const over = await call('POST', url, { body: { results: [] }, token: tenant.token });
    expect(over.statusCode).toBe(429);
    expect(limits(over)).toMatchObject({ limit: 600, remaining: 0 });
    // 600 ingestion requests left reads and writes untouched
    const read = await call('GET', `/api/v1/public/${tenant.projectId}/token-info`, { token: tenant.token });
    expect(limits(read)).toMatchObject({ limit: 100, remaining: 99 });
    const write = await call('POST', `/api/v1/public/${tenant.projectId}/probe-action`, { body: { name: 'w' }, token: tenant.token });
    expect(limits(write)).toMatchObject({ limit: 60, remaining: 59 });
  });
});

describe('Redis round trips of an authenticated request', () => {
  /** Counts the gateway's writes to Redis while `fn` runs (ioredis writes a pipeline, one round trip, at once). */
  async function redisWrites<T>(fn: () => Promise<T>): Promise<{ result: T; writes: number }> {
    const socket = (redis as unknown as { stream: Socket }).stream;
    const write = socket.write;
    let writes = 0;
    socket.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
      writes++;
      return write.apply(this, args);
    } as Socket['write'];
    try {
      return { result: await fn(), writes };
    } finally {
      socket.write = write;
    }
  }

  it("one, once the token is cached: the per-IP count, the token's counts and the cache read go together", async () => {
    const tenant = await testAdmin().tenant('owner');
    const url = `/api/v1/public/${tenant.projectId}/probe-read`;
    const first = await call('GET', url, { token: tenant.token });
    expect(first.statusCode).toBe(200);
    expect(limits(first)).toMatchObject({ limit: 100, remaining: 99 });
    const { result: second, writes } = await redisWrites(() => call('GET', url, { token: tenant.token }));
    expect(second.statusCode).toBe(200);
    expect(limits(second)).toMatchObject({ limit: 100, remaining: 98 });
    expect(writes).toBe(1);
    // A route with an extra bucket counts in both, in the same round trip.
    const pdf = await redisWrites(() => call('GET', `/api/v1/public/${tenant.projectId}/probe-pdf`, { token: tenant.token }));
    expect(pdf.result.statusCode).toBe(200);
    expect(limits(pdf.result)).toMatchObject({ limit: 1, remaining: 0 });
    expect(pdf.writes).toBe(1);
    const read = await call('GET', url, { token: tenant.token });
    expect(limits(read)).toMatchObject({ limit: 100, remaining: 96 });
  });

  it('a token refused by authentication is answered as before, and the same secret keeps one budget', async () => {
    const tenant = await testAdmin().tenant('owner');
    const url = `/api/v1/public/${tenant.projectId}/probe-read`;
    const other = await testAdmin().tenant('owner');
    // Another token's project: 404 after counting in that token's reads, whose budget then shows it.
    expect((await call('GET', `/api/v1/public/${other.projectId}/probe-read`, { token: tenant.token })).statusCode).toBe(404);
    expect(limits(await call('GET', url, { token: tenant.token }))).toMatchObject({ limit: 100, remaining: 98 });
    // A well-formed token no one holds: 401, without rate-limit headers.
    const unknown = await call('GET', url, { token: issueSecret().token });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.headers['ratelimit-limit']).toBeUndefined();
  });

  it('a bearer token sent with a session cookie is the one authenticated and counted, once, in the same round trip', async () => {
    const tenant = await testAdmin().tenant('owner');
    const url = `/api/v1/public/${tenant.projectId}/probe-read`;
    // A well-formed cookie no session holds: were the cookie the credential, the answer would be 401.
    const cookie = `assay_session=${'A'.repeat(43)}`;
    expect(limits(await call('GET', url, { token: tenant.token, headers: { cookie } }))).toMatchObject({ remaining: 99 });
    const { result, writes } = await redisWrites(() => call('GET', url, { token: tenant.token, headers: { cookie } }));
    expect(result.statusCode).toBe(200);
    expect(limits(result)).toMatchObject({ limit: 100, remaining: 98 });
    expect(writes).toBe(1);
  });
});

describe('body limits', () => {
  const big = (bytes: number) => JSON.stringify({ results: ['x'.repeat(bytes)] });

  it('ingestion routes take bodies above the public 1 MiB, up to INGEST_BODY_LIMIT_BYTES; 413 envelope above', async () => {
    const url = '/api/v1/ingest/:p/probe-upload';
    const ok = await call('POST', url, { raw: big(1.5 * 1024 * 1024) });
    expect(ok.statusCode).toBe(200);
    const tooBig = await call('POST', url, { raw: big(INGEST_LIMIT + 10) });
    expect(tooBig.statusCode).toBe(413);
    expect(JSON.parse(tooBig.body)).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('a route outside the prefix declaring the ingest bucket (the compatibility upload) gets the ingest limit', async () => {
    const res = await call('POST', '/api/reports/probe-compat', { raw: big(1.5 * 1024 * 1024) });
    expect(res.statusCode).toBe(200);
    expect(limits(res).limit).toBe(600);
  });

  it('public routes keep the 1 MiB limit', async () => {
    const res = await call('POST', '/api/v1/public/:p/probe-action', { raw: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }) });
    expect(res.statusCode).toBe(413);
    expect(code(res)).toBe('PAYLOAD_TOO_LARGE');
  });
});

/** Waits (polling, not a fixed sleep: CI machines are busy) until `n` slow handlers hold their gate. */
const handlersWaiting = (n: number) =>
  waitUntil(
    async () => gates.length >= n,
    10000,
    () => `${gates.length} handlers waiting, expected ${n}`,
    10,
  );

describe('idempotency keys on routes that only declare a 201', () => {
  it('409 IDEMPOTENCY_KEY_IN_PROGRESS while the first runs, 422 for another body, then the replay', async () => {
    const key = `k-${Date.now()}-inflight`;
    const headers = { 'idempotency-key': key };
    const runsBefore = handlerRuns;
    const first = call('POST', '/api/v1/public/:p/probe-slow', { body: { name: 'a' }, headers });
    await handlersWaiting(1);
    const during = await call('POST', '/api/v1/public/:p/probe-slow', { body: { name: 'a' }, headers });
    expect(during.statusCode).toBe(409);
    expect(code(during)).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    const otherBody = await call('POST', '/api/v1/public/:p/probe-slow', { body: { name: 'b' }, headers });
    expect(otherBody.statusCode).toBe(422);
    expect(code(otherBody)).toBe('IDEMPOTENCY_KEY_REUSE');
    openGates();
    const original = await first;
    expect(original.statusCode).toBe(201);
    const replay = await call('POST', '/api/v1/public/:p/probe-slow', { body: { name: 'a' }, headers });
    expect(replay.statusCode).toBe(201);
    expect(replay.body).toBe(original.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toBe(original.headers['content-type']);
    expect(handlerRuns - runsBefore).toBe(1);
  });

  it('a slow request keeps its key past the lease (renewed while it runs): a retry meanwhile is 409, never a second run', async () => {
    const headers = { 'idempotency-key': `k-${Date.now()}-slow` };
    const runsBefore = handlerRuns;
    const slow = call('POST', '/api/v1/public/:p/probe-slow', { body: { name: 'a' }, headers });
    await handlersWaiting(1);
    await new Promise((r) => setTimeout(r, LEASE_MS * 3));
    const retry = await call('POST', '/api/v1/public/:p/probe-slow', { body: { name: 'a' }, headers });
    expect(retry.statusCode).toBe(409);
    expect(JSON.parse(retry.body).error.code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    openGates();
    const original = await slow;
    expect(original.statusCode).toBe(201);
    const replay = await call('POST', '/api/v1/public/:p/probe-slow', { body: { name: 'a' }, headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(original.body);
    expect(handlerRuns - runsBefore).toBe(1);
  });

  it('a holder that stops renewing (a crashed gateway) loses the key when its lease expires', async () => {
    const key = `k-${Date.now()}-lease`;
    const headers = { 'idempotency-key': key };
    const stuck = call('POST', '/api/v1/public/:p/probe-slow', { body: { name: 'a' }, headers: { ...headers, 'x-simulate-crash': '1' } });
    await handlersWaiting(1);
    await new Promise((r) => setTimeout(r, LEASE_MS + 200));
    const takeover = call('POST', '/api/v1/public/:p/probe-slow', { body: { name: 'a' }, headers });
    await handlersWaiting(2); // the second request ran the handler: the key was free again
    const [release1, release2] = gates;
    gates = [];
    release2!(); // the new holder finishes first and stores its answer
    const second = await takeover;
    expect(second.statusCode).toBe(201);
    release1!(); // the expired holder finishes late: it must not overwrite the stored answer
    await stuck;
    const replay = await call('POST', '/api/v1/public/:p/probe-slow', { body: { name: 'a' }, headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(second.body);
  });

  it('a 5xx is not stored: the retry runs the handler again, and its success is what gets replayed', async () => {
    const headers = { 'idempotency-key': `k-${Date.now()}-5xx` };
    flakyFailures = 1;
    const failed = await call('POST', '/api/v1/public/:p/probe-flaky', { body: { name: 'a' }, headers });
    expect(failed.statusCode).toBe(503);
    const retried = await call('POST', '/api/v1/public/:p/probe-flaky', { body: { name: 'a' }, headers });
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    const replay = await call('POST', '/api/v1/public/:p/probe-flaky', { body: { name: 'a' }, headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(retried.body);
  });

  it('POST routes that are not creates (no 201/202) ignore the header', async () => {
    const headers = { 'idempotency-key': `k-${Date.now()}-action` };
    const a = await call('POST', '/api/v1/public/:p/probe-action', { body: { name: 'a' }, headers });
    const b = await call('POST', '/api/v1/public/:p/probe-action', { body: { name: 'a' }, headers });
    expect(JSON.parse(a.body).data.n).not.toBe(JSON.parse(b.body).data.n);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });

  it('the key is stored under the token, never in clear, and expires after IDEMPOTENCY_TTL_SECONDS', async () => {
    const key = `k-${Date.now()}-ttl`;
    await call('POST', '/api/v1/public/:p/probe-manual-runs', { body: { name: 'ttl' }, headers: { 'idempotency-key': key } });
    const stored = await redis.keys(`assay:idem:${t.tokenId}:*`);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.join(' ')).not.toContain(key);
    const ttls = await Promise.all(stored.map((k) => redis.ttl(k)));
    expect(Math.max(...ttls)).toBeGreaterThan(86400 - 60);
    expect(Math.max(...ttls)).toBeLessThanOrEqual(86400);
  });
});

describe('Redis unreachable', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After instead of letting traffic through, and recovers', async () => {
    await redisServer.stop();
    try {
      const authed = await call('GET', '/api/v1/public/:p/token-info');
      expect(authed.statusCode).toBe(503);
      expect(JSON.parse(authed.body)).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
      expect(Number(authed.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const anonymous = await call('GET', '/api/v1/public/:p/token-info', { token: 'nope' });
      expect(anonymous.statusCode).toBe(503);
    } finally {
      await redisServer.start();
    }
    const deadline = Date.now() + 20000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await call('GET', '/api/v1/public/:p/token-info')).statusCode;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
  });
});
