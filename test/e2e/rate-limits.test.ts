/**
 * Rate limits of spec §8 and CONTRACT §9 on real gateway processes with the default limits (the shared test
 * gateway runs with raised ones): per token (reads 100, writes 60) with the RateLimit-* headers, per IP
 * before authentication (200, 401s included, no RateLimit-* headers), the client IP through trusted proxies
 * only, and 503 instead of unlimited traffic while Redis is unreachable. The PDF, manual-run and ingestion
 * buckets are covered in gateway/test/policies.test.ts.
 */
import {
  startPrivateGateway,
  startPrivateRedis,
  testAdmin,
  type ApiResponse,
  type PrivateGateway,
  type PrivateRedis,
  type Tenant,
} from '@assay/testkit';

const admin = testAdmin();
let redisA: PrivateRedis;
let redisB: PrivateRedis;
/** Defaults, one trusted proxy hop (as behind the ingress). */
let behindProxy: PrivateGateway;
/** No trusted proxy, per-IP limit 5, its own Redis (stopped in the last test). */
let direct: PrivateGateway;

beforeAll(async () => {
  [redisA, redisB] = await Promise.all([startPrivateRedis(), startPrivateRedis()]);
  [behindProxy, direct] = await Promise.all([
    startPrivateGateway({ name: 'proxy', env: { REDIS_URL: redisA.url, TRUSTED_PROXY_HOPS: '1' } }),
    startPrivateGateway({ name: 'direct', env: { REDIS_URL: redisB.url, TRUSTED_PROXY_HOPS: '0', RATE_LIMITS: 'ip=5' } }),
  ]);
});

afterAll(async () => {
  await Promise.all([behindProxy?.stop(), direct?.stop()]);
  await Promise.all([redisA?.remove(), redisB?.remove()]);
});

let ipCounter = 0;
/** A client address seen through the proxy (documentation range: never contacted, only a header value). */
const freshIp = () => `203.0.113.${++ipCounter}`;
const via = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
const rl = (res: ApiResponse) => ({
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  reset: res.headers.get('ratelimit-reset'),
});
const noRateLimitHeaders = { limit: null, remaining: null, reset: null };

describe('per-token limits (default 100 reads, 60 writes per minute)', () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await admin.tenant('owner');
  });

  it('150 concurrent reads with one token: exactly 100 succeed and 50 get 429', async () => {
    const tenant = await admin.tenant('viewer');
    const api = behindProxy.api(tenant.token);
    const results = await Promise.all(Array.from({ length: 150 }, () => api.get(`/${tenant.projectId}/token-info`, via(freshIp()))));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect([ok.length, limited.length]).toEqual([100, 50]);
    for (const r of limited) {
      expect(r.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String) } });
      expect(rl(r)).toMatchObject({ limit: '100', remaining: '0' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    // every remaining value from 99 to 0 was handed out once
    expect(ok.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
  });

  it('reports RateLimit-Limit 100 on a read and 60 on a write of a fresh token; Remaining decreases; Reset is 0–60', async () => {
    const api = behindProxy.api(t.token);
    const ip = freshIp();
    const reads = [];
    for (let i = 0; i < 3; i++) reads.push(await api.get(`/${t.projectId}/token-info`, via(ip)));
    expect(reads.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(reads.map((r) => rl(r).limit)).toEqual(['100', '100', '100']);
    expect(reads.map((r) => rl(r).remaining)).toEqual(['99', '98', '97']);
    for (const r of reads) {
      expect(Number(rl(r).reset)).toBeGreaterThanOrEqual(0);
      expect(Number(rl(r).reset)).toBeLessThanOrEqual(60);
    }
    const write = await api.post(`/${t.projectId}/manual-test-suites`, { name: 'Limited' }, via(ip));
    expect(write.status).toBe(201);
    expect(rl(write)).toMatchObject({ limit: '60', remaining: '59' });
    // errors after authentication carry them too, and count
    const invalid = await api.post(`/${t.projectId}/manual-test-suites`, { nope: 1 }, via(ip));
    expect(invalid.status).toBe(400);
    expect(rl(invalid)).toMatchObject({ limit: '60', remaining: '58' });
  });

  it('a write 429 after 60 writes carries RateLimit-Remaining 0 and Retry-After', async () => {
    const tenant = await admin.tenant('owner');
    const api = behindProxy.api(tenant.token);
    // invalid bodies: rejected by validation after authentication, so they count without writing anything
    const results = await Promise.all(
      Array.from({ length: 61 }, () => api.post(`/${tenant.projectId}/manual-test-suites`, {}, via(freshIp()))),
    );
    expect(results.filter((r) => r.status === 400)).toHaveLength(60);
    const [over] = results.filter((r) => r.status === 429);
    expect(over).toBeDefined();
    expect(rl(over!)).toMatchObject({ limit: '60', remaining: '0' });
    expect(Number(over!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // reads are a separate budget
    expect(rl(await api.get(`/${tenant.projectId}/token-info`, via(freshIp())))).toMatchObject({ limit: '100', remaining: '99' });
  });

  it('token-info reports the spec quotas of every bucket (defaults of RATE_LIMITS)', async () => {
    const res = await behindProxy.api(t.token).get(`/${t.projectId}/token-info`, via(freshIp()));
    expect(res.body.data.rateLimits).toEqual({
      reads: { limit: 100, windowSeconds: 60 },
      writes: { limit: 60, windowSeconds: 60 },
      manualRunCreate: { limit: 10, windowSeconds: 60 },
      pdf: { limit: 1, windowSeconds: 60 },
      ingest: { limit: 600, windowSeconds: 60 },
    });
  });

  it('puts no RateLimit-* headers on answers rejected before authentication', async () => {
    const ip = freshIp();
    for (const authorization of [null, 'Bearer svc_pat_nope', 'Basic abc']) {
      const res = await behindProxy.api().get(`/${t.projectId}/token-info`, { ...via(ip), authorization });
      expect(res.status).toBe(401);
      expect(rl(res)).toEqual(noRateLimitHeaders);
    }
  });
});

describe('per-IP limit (200 per minute, before authentication)', () => {
  it('counts every request, 401s included; the 201st gets 429 with Retry-After and no RateLimit-* headers', async () => {
    const t = await admin.tenant('owner');
    const ip = freshIp();
    const anonymous = await Promise.all(
      Array.from({ length: 150 }, () => behindProxy.api().get(`/${t.projectId}/token-info`, { ...via(ip), authorization: null })),
    );
    expect(anonymous.every((r) => r.status === 401)).toBe(true);
    const unknown = await Promise.all(Array.from({ length: 10 }, () => behindProxy.api(t.token).get('/api/v1/nowhere', via(ip))));
    expect(unknown.every((r) => r.status === 404)).toBe(true);
    const authed = await Promise.all(Array.from({ length: 40 }, () => behindProxy.api(t.token).get(`/${t.projectId}/token-info`, via(ip))));
    expect(authed.every((r) => r.status === 200)).toBe(true);
    for (const res of [
      await behindProxy.api(t.token).get(`/${t.projectId}/token-info`, via(ip)),
      await behindProxy.api().get(`/${t.projectId}/token-info`, { ...via(ip), authorization: null }),
    ]) {
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED' } });
      expect(rl(res)).toEqual(noRateLimitHeaders);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    // another client address is not affected; health probes are never limited
    expect((await behindProxy.api(t.token).get(`/${t.projectId}/token-info`, via(freshIp()))).status).toBe(200);
    expect((await behindProxy.api().get('/healthz', via(ip))).status).toBe(200);
  });

  it('behind one trusted proxy, takes the address the proxy appended, not one the client wrote itself', async () => {
    const t = await admin.tenant('owner');
    const real = freshIp();
    // a client spoofing the leftmost X-Forwarded-For entry still lands in the bucket of the address the proxy saw
    const spoofed = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        behindProxy
          .api()
          .get(`/${t.projectId}/token-info`, { headers: { 'x-forwarded-for': `198.18.0.${i % 250}, ${real}` }, authorization: null }),
      ),
    );
    expect(spoofed.every((r) => r.status === 401)).toBe(true);
    const next = await behindProxy
      .api()
      .get(`/${t.projectId}/token-info`, { headers: { 'x-forwarded-for': `198.18.1.1, ${real}` }, authorization: null });
    expect(next.status).toBe(429);
  });

  it('keys an IPv6 client on its /64: 200 requests from 200 addresses of one /64 fill it; another /64 is not affected', async () => {
    const t = await admin.tenant('owner');
    const prefix = `2001:db8:${(++ipCounter).toString(16)}:1`;
    const spread = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        behindProxy.api().get(`/${t.projectId}/token-info`, { ...via(`${prefix}::${(i + 1).toString(16)}`), authorization: null }),
      ),
    );
    expect(spread.every((r) => r.status === 401)).toBe(true);
    const sameSlash64 = await behindProxy
      .api()
      .get(`/${t.projectId}/token-info`, { ...via(`${prefix}:ffff:ffff:ffff:ffff`), authorization: null });
    expect(sameSlash64.status).toBe(429);
    const otherSlash64 = await behindProxy
      .api()
      .get(`/${t.projectId}/token-info`, { ...via(`${prefix.slice(0, -1)}2::1`), authorization: null });
    expect(otherSlash64.status).toBe(401);
  });

  it('with no trusted proxy, ignores X-Forwarded-For and limits the socket address', async () => {
    const t = await admin.tenant('owner');
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await direct.api(t.token).get(`/${t.projectId}/token-info`, via(freshIp())));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe('Redis unreachable', () => {
  it('answers 503 SERVICE_UNAVAILABLE (envelope, Retry-After) instead of serving unlimited, and recovers when it returns', async () => {
    const t = await admin.tenant('owner');
    await redisB.stop();
    try {
      for (const api of [direct.api(t.token), direct.api()]) {
        const res = await api.get(`/${t.projectId}/token-info`);
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } });
        expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|redis:\/\/|ECONNREFUSED|\bat .*\.js:\d+/);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      const create = await direct
        .api(t.token)
        .post(`/${t.projectId}/manual-test-suites`, { name: 'x' }, { headers: { 'idempotency-key': 'k' } });
      expect(create.status).toBe(503);
      expect((await direct.api().get('/healthz')).status).toBe(200);
      const ready = await direct.api().get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.redis).toBe(false);
    } finally {
      await redisB.start();
    }
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await direct.api(t.token).get(`/${t.projectId}/token-info`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
  });
});
