/**
 * The retry policy against a real HTTP server (spec §7 client guidance): 429 and 5xx are retried with the
 * server's wait or the capped backoff, 4xx never; a POST keeps one Idempotency-Key across its retries.
 */
import { backoffDelay, createAssayClient, serverDelay, type AssayClientOptions } from '../src';
import { envelope, recordingSleep, startServer, type Answer, type TestServer } from './server';

const projectId = 'p1';
const RUNS = '/api/v1/public/{projectId}/test-runs' as const;
const SUITES = '/api/v1/public/{projectId}/manual-test-suites' as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ok = {
  status: 200,
  body: { success: true, data: [], pagination: { page: 1, limit: 10, total: 0, hasNext: false, hasPrev: false, hasMore: false } },
};

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(script: Answer[] | ((i: number) => Answer), opts: Partial<AssayClientOptions> = {}) {
  server = await startServer((_req, i) => (typeof script === 'function' ? script(i) : script[Math.min(i, script.length - 1)]!));
  const rec = recordingSleep();
  const client = createAssayClient({ baseUrl: server.url, token: 'svc_pat_test', sleep: rec.sleep, random: () => 0.5, ...opts });
  return { client, delays: rec.delays, requests: server.requests };
}

describe('retries', () => {
  it('waits as long as Retry-After says on a 429, then gets the answer', async () => {
    const { client, delays, requests } = await setup([
      {
        status: 429,
        headers: { 'retry-after': '2', 'ratelimit-reset': '40', 'ratelimit-remaining': '0' },
        body: envelope('RATE_LIMIT_EXCEEDED'),
      },
      ok,
    ]);
    const { data, error, response } = await client.GET(RUNS, { params: { path: { projectId } } });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data?.success).toBe(true);
    expect(requests).toHaveLength(2);
    expect(delays).toEqual([2000]);
    expect(requests.map((r) => r.headers.authorization)).toEqual(['Bearer svc_pat_test', 'Bearer svc_pat_test']);
  });

  it('uses RateLimit-Reset on a 429 without Retry-After', async () => {
    const { client, delays, requests } = await setup([
      { status: 429, headers: { 'ratelimit-reset': '7', 'ratelimit-remaining': '0' }, body: envelope('RATE_LIMIT_EXCEEDED') },
      ok,
    ]);
    await client.GET(RUNS, { params: { path: { projectId } } });
    expect(requests).toHaveLength(2);
    expect(delays).toEqual([7000]);
  });

  it('retries a 503 with the backoff (RateLimit-Reset on a 5xx is not a wait), then returns the 200', async () => {
    const { client, delays, requests } = await setup([
      { status: 503, headers: { 'ratelimit-reset': '55' }, body: envelope('SERVICE_UNAVAILABLE') },
      { status: 502, body: envelope('INTERNAL_ERROR') },
      ok,
    ]);
    const { data, response } = await client.GET(RUNS, { params: { path: { projectId } } });
    expect(response.status).toBe(200);
    expect(data?.data).toEqual([]);
    expect(requests).toHaveLength(3);
    // random 0.5: retry 0 → max(1000, 750) = 1000; retry 1 → 1000 + 0.5 × 1000 = 1500.
    expect(delays).toEqual([1000, 1500]);
  });

  it('honours Retry-After on a 503 too', async () => {
    const { client, delays } = await setup([{ status: 503, headers: { 'retry-after': '5' }, body: envelope('SERVICE_UNAVAILABLE') }, ok]);
    await client.GET(RUNS, { params: { path: { projectId } } });
    expect(delays).toEqual([5000]);
  });

  it.each([400, 401, 403, 404, 405, 408, 409, 413, 422])('sends a request answered %i exactly once', async (status) => {
    const { client, delays, requests } = await setup([{ status, body: envelope(`CODE_${status}`) }, ok]);
    const { data, error, response } = await client.GET(RUNS, { params: { path: { projectId } } });
    expect(response.status).toBe(status);
    expect(data).toBeUndefined();
    expect(error).toEqual(envelope(`CODE_${status}`));
    expect(requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('sends a POST answered 400, 401, 403 or 404 exactly once too', async () => {
    for (const status of [400, 401, 403, 404]) {
      const { client, requests } = await setup([
        { status, body: envelope(`CODE_${status}`) },
        { status: 201, body: {} },
      ]);
      const { response } = await client.POST(SUITES, { params: { path: { projectId } }, body: { name: 'x' } });
      expect(response.status).toBe(status);
      expect(requests).toHaveLength(1);
      await server!.close();
      server = undefined;
    }
  });

  it('gives up after maxRetries and returns the last answer', async () => {
    const { client, delays, requests } = await setup([{ status: 500, body: envelope('INTERNAL_ERROR') }], { maxRetries: 2 });
    const { error, response } = await client.GET(RUNS, { params: { path: { projectId } } });
    expect(response.status).toBe(500);
    expect(error).toEqual(envelope('INTERNAL_ERROR'));
    expect(requests).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it('makes one request when retries are off (maxRetries 0)', async () => {
    const { client, requests } = await setup([{ status: 503, body: envelope('SERVICE_UNAVAILABLE') }, ok], { maxRetries: 0 });
    expect((await client.GET(RUNS, { params: { path: { projectId } } })).response.status).toBe(503);
    expect(requests).toHaveLength(1);
  });

  it('caps the exponential backoff at 30 s, with jitter, never under 1 s', async () => {
    for (const [random, expected] of [
      [() => 0, [1000, 1000, 2000, 4000, 8000, 15000, 15000, 15000, 15000]],
      [() => 0.999999, [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]],
    ] as const) {
      const { client, delays, requests } = await setup([{ status: 500, body: envelope('INTERNAL_ERROR') }], { maxRetries: 9, random });
      await client.GET(RUNS, { params: { path: { projectId } } });
      expect(requests).toHaveLength(10);
      expect(delays).toEqual(expected);
      await server!.close();
      server = undefined;
    }
    // Real randomness: every wait between 1 s and 30 s, within [half, all] of its ceiling.
    for (let retry = 0; retry < 20; retry++) {
      const ceiling = Math.min(30_000, 1000 * 2 ** retry);
      for (let i = 0; i < 50; i++) {
        const d = backoffDelay(retry);
        expect(d).toBeGreaterThanOrEqual(Math.max(1000, ceiling / 2));
        expect(d).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('does not wait for a Retry-After longer than maxRetryAfterMs: the 429 is returned', async () => {
    const { client, delays, requests } = await setup([
      { status: 429, headers: { 'retry-after': '3600' }, body: envelope('RATE_LIMIT_EXCEEDED') },
      ok,
    ]);
    expect((await client.GET(RUNS, { params: { path: { projectId } } })).response.status).toBe(429);
    expect(requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('retries a network failure (connection closed without an answer)', async () => {
    const { client, delays, requests } = await setup([{ status: 0, hangUp: true }, ok]);
    const { response } = await client.GET(RUNS, { params: { path: { projectId } } });
    expect(response.status).toBe(200);
    expect(requests).toHaveLength(2);
    expect(delays).toEqual([1000]);
  });

  it('throws the network failure once the retries are spent', async () => {
    const { client, requests } = await setup([{ status: 0, hangUp: true }], { maxRetries: 1 });
    await expect(client.GET(RUNS, { params: { path: { projectId } } })).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
    });
    expect(requests).toHaveLength(2);
  });

  it('stops waiting and does not retry when the call is aborted', async () => {
    server = await startServer(() => ({ status: 503, body: envelope('SERVICE_UNAVAILABLE') }));
    const controller = new AbortController();
    const client = createAssayClient({ baseUrl: server.url, initialDelayMs: 60_000, onRetry: () => controller.abort() });
    const started = Date.now();
    await expect(client.GET(RUNS, { params: { path: { projectId } }, signal: controller.signal })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server.requests).toHaveLength(1);
  });
});

describe('idempotency keys', () => {
  it('sends the same random Idempotency-Key on every retry of one POST, and the same body', async () => {
    const { client, requests } = await setup([
      { status: 503, body: envelope('SERVICE_UNAVAILABLE') },
      { status: 429, headers: { 'retry-after': '1' }, body: envelope('RATE_LIMIT_EXCEEDED') },
      { status: 201, body: { success: true, data: { _id: 's1', name: 'Checkout' } } },
    ]);
    const { data, response } = await client.POST(SUITES, { params: { path: { projectId } }, body: { name: 'Checkout' } });
    expect(response.status).toBe(201);
    expect(data?.data.name).toBe('Checkout');
    expect(requests).toHaveLength(3);
    const keys = requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(UUID);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
    expect(requests.map((r) => r.body)).toEqual(Array(3).fill('{"name":"Checkout"}'));
  });

  it('gives each POST call its own key, and none to GET or PATCH', async () => {
    const { client, requests } = await setup([{ status: 201, body: { success: true, data: {} } }]);
    await client.POST(SUITES, { params: { path: { projectId } }, body: { name: 'a' } });
    await client.POST(SUITES, { params: { path: { projectId } }, body: { name: 'b' } });
    await client.GET(RUNS, { params: { path: { projectId } } });
    await client.PATCH('/api/v1/public/{projectId}/manual-test-suites/{suiteId}', {
      params: { path: { projectId, suiteId: 's1' } },
      body: { name: 'c' },
    });
    const [a, b, get, patch] = requests.map((r) => r.headers['idempotency-key']);
    expect(a).toMatch(UUID);
    expect(b).toMatch(UUID);
    expect(a).not.toBe(b);
    expect(get).toBeUndefined();
    expect(patch).toBeUndefined();
  });

  it("keeps the caller's own key across retries", async () => {
    const { client, requests } = await setup([
      { status: 500, body: envelope('INTERNAL_ERROR') },
      { status: 201, body: {} },
    ]);
    await client.POST(SUITES, { params: { path: { projectId } }, body: { name: 'a' }, headers: { 'Idempotency-Key': 'mine-1' } });
    expect(requests.map((r) => r.headers['idempotency-key'])).toEqual(['mine-1', 'mine-1']);
  });

  it('sends no key when idempotencyKeys is false', async () => {
    const { client, requests } = await setup([{ status: 201, body: {} }], { idempotencyKeys: false });
    await client.POST(SUITES, { params: { path: { projectId } }, body: { name: 'a' } });
    expect(requests[0]!.headers['idempotency-key']).toBeUndefined();
  });
});

describe('serverDelay', () => {
  const res = (status: number, headers: Record<string, string>) => new Response(null, { status, headers });
  it('reads Retry-After in seconds or as an HTTP date, RateLimit-Reset only on a 429', () => {
    expect(serverDelay(res(429, { 'retry-after': '3' }))).toBe(3000);
    expect(serverDelay(res(503, { 'retry-after': new Date(1_000_000 + 4000).toUTCString() }), () => 1_000_000)).toBe(4000);
    expect(serverDelay(res(429, { 'ratelimit-reset': '12' }))).toBe(12000);
    expect(serverDelay(res(503, { 'ratelimit-reset': '12' }))).toBeUndefined();
    expect(serverDelay(res(429, {}))).toBeUndefined();
  });
});
