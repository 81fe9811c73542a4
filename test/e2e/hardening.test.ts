/**
 * Across every route: the security headers on every answer (success, error, rejected before routing), and no
 * stack trace, SQL or internal hostname in any error body — for every operation of the OpenAPI document
 * (so routes added later are covered without touching this file), for the policy rejections, and for a
 * service that cannot be reached.
 */
import { startPrivateGateway, startPrivateRedis, testAdmin, testApi, type ApiResponse, type Tenant } from '@assay/testkit';

const LEAK =
  /\bat [\w.<>]+ \(|\.(?:js|ts):\d+|node_modules|\b(?:SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b|syntax error at|relation "|127\.0\.0\.1|localhost|::1|ECONNREFUSED|postgres(?:ql)?:\/\/|redis:\/\/|https?:\/\/[\w.-]+:\d+/i;

function expectHardened(where: string, res: ApiResponse) {
  const h = (name: string) => res.headers.get(name);
  expect([where, h('x-content-type-options')]).toEqual([where, 'nosniff']);
  expect([where, h('strict-transport-security')]).toEqual([where, expect.stringContaining('max-age=')]);
  expect([where, h('x-frame-options')]).toEqual([where, expect.any(String)]);
  expect([where, h('referrer-policy')]).toEqual([where, 'no-referrer']);
  expect([where, h('content-security-policy')]).toEqual([where, expect.stringContaining("frame-ancestors 'none'")]);
  expect([where, h('x-powered-by')]).toEqual([where, null]);
  if (res.status >= 400) {
    expect([where, res.body]).toEqual([
      where,
      { success: false, error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) },
    ]);
    expect([where, LEAK.test(res.text)]).toEqual([where, false]);
  }
}

let t: Tenant;
let doc: { paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>> };
beforeAll(async () => {
  t = await testAdmin().tenant('owner');
  doc = (await testApi().get('/api/v1/public/openapi.json')).body;
});

describe('every documented operation', () => {
  it('answers with the security headers, and errors without internal detail (valid token, unknown ids, bad bodies)', async () => {
    let calls = 0;
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item).filter((m) => ['get', 'post', 'patch', 'put', 'delete'].includes(m))) {
        const url = template.replace('{projectId}', t.projectId).replace(/\{\w+\}/g, '0123456789abcdef01234567');
        const variants: { label: string; body?: unknown; raw?: string; auth?: string | null }[] = [
          { label: 'as is', body: method === 'get' || method === 'delete' ? undefined : {} },
        ];
        if (method !== 'get' && method !== 'delete') {
          variants.push({ label: 'malformed JSON', raw: '{"a": [1, 2' });
          variants.push({
            label: 'wrong types',
            body: { name: 42, description: ['x'], $where: '1=1; DROP TABLE x', __proto__: { admin: true } },
          });
        }
        variants.push({ label: 'no token', auth: null });
        variants.push({ label: 'unknown token', auth: 'Bearer svc_pat_' + 'f'.repeat(72) });
        for (const v of variants) {
          const res = await testApi(t.token).request(method.toUpperCase(), url, {
            body: v.body,
            rawBody: v.raw,
            headers: v.raw ? { 'content-type': 'application/json' } : {},
            authorization: v.auth,
          });
          expect([`${method} ${template} (${v.label})`, res.status < 500]).toEqual([`${method} ${template} (${v.label})`, true]);
          expectHardened(`${method.toUpperCase()} ${template} (${v.label})`, res);
          calls++;
        }
      }
    }
    expect(calls).toBeGreaterThan(0);
  });
});

describe('answers outside the documented operations', () => {
  it('carry the same headers and envelopes: unknown route, wrong method, 413, 415, the document itself, health', async () => {
    const api = testApi(t.token);
    const cases: [string, Promise<ApiResponse>][] = [
      ['unknown route', api.get('/api/v1/nowhere')],
      ['wrong method', api.request('PUT', `/${t.projectId}/manual-test-suites`, { body: {} })],
      ['413', api.post(`/${t.projectId}/manual-test-suites`, { name: 'x'.repeat(1024 * 1024 + 1) })],
      [
        '415',
        api.request('POST', `/${t.projectId}/manual-test-suites`, { rawBody: '<x/>', headers: { 'content-type': 'application/xml' } }),
      ],
      ['openapi.json', api.get('/api/v1/public/openapi.json')],
      ['healthz', api.get('/healthz')],
      ['path traversal', api.get(`/${t.projectId}/..%2F..%2Fetc%2Fpasswd`)],
      ['overlong id', api.get(`/${'p'.repeat(300)}/token-info`)],
      ['bad percent-encoding', api.get(`/${t.projectId}/manual-test-suites/%E0%A4%A`)],
    ];
    for (const [label, pending] of cases) expectHardened(label, await pending);
  });

  it('a service that cannot be reached gives 503 SERVICE_UNAVAILABLE without naming its address; the rest stays up', async () => {
    const redis = await startPrivateRedis();
    const gw = await startPrivateGateway({ name: 'no-service', env: { REDIS_URL: redis.url, MANUAL_TESTING_URL: 'http://127.0.0.1:9' } });
    try {
      const res = await gw.api(t.token).get(`/${t.projectId}/manual-test-suites`);
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expectHardened('unreachable service', res);
      // The gateway stays ready (its own stores answer) and reports the service; other routes keep working.
      const ready = await gw.api().get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({ identity: true, redis: true });
      expect(ready.body.services).toMatchObject({ 'manual-testing': false, runs: true });
      expect((await gw.api(t.token).get(`/${t.projectId}/test-runs`)).status).toBe(200);
    } finally {
      await gw.stop();
      await redis.remove();
    }
  });
});

describe('what fuzzing found (regressions)', () => {
  it("a page number past the services' 32-bit range is 400 VALIDATION_ERROR, not 500", async () => {
    const res = await testApi(t.token).get(`/${t.projectId}/manual-test-suites?page=40072969468&limit=25`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path: 'query.page' })] });
    expect((await testApi(t.token).get(`/${t.projectId}/manual-test-suites?page=1000000`)).status).toBe(200);
  });

  it('a method no route has (QUERY), or a body on an unknown route, is 405/404, not 400 or 415', async () => {
    const query = await testApi(t.token).request('QUERY', `/${t.projectId}/token-info`);
    expect(query.status).toBe(405);
    expect(query.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(query.headers.get('allow')).toContain('GET');
    const unknown = await testApi(t.token).request('POST', '/api/v1/nowhere', { rawBody: 'x', headers: { 'content-type': 'text/plain' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });
});
