/**
 * Every error in the envelope (spec §2.1, CONTRACT §3): unknown routes, wrong methods, oversize and malformed
 * bodies, unsupported media types, unknown properties; query keys stripped; the pagination rules.
 */
import fs from 'node:fs';
import path from 'node:path';
import { testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';

const admin = testAdmin();
let t: Tenant;
beforeAll(async () => {
  t = await admin.tenant('owner');
});

function expectEnvelope(body: any, code: string) {
  expect(body).toMatchObject({ success: false, error: { code, message: expect.any(String) } });
  // no stack traces, SQL or hosts in any error body
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.js:\d+|SELECT |INSERT |127\.0\.0\.1|localhost/);
}

describe('error envelopes', () => {
  it('404 NOT_FOUND for an unknown route, with or without a token', async () => {
    for (const api of [testApi(), testApi(t.token)]) {
      const res = await api.get('/api/v1/nowhere');
      expect(res.status).toBe(404);
      expectEnvelope(res.body, 'NOT_FOUND');
    }
    const deep = await testApi(t.token).get(`/${t.projectId}/no-such-family`);
    expect(deep.status).toBe(404);
    expectEnvelope(deep.body, 'NOT_FOUND');
  });

  it('405 METHOD_NOT_ALLOWED with Allow for a known path and a wrong method', async () => {
    const res = await testApi(t.token).request('PUT', `/${t.projectId}/manual-test-suites`, { body: {} });
    expect(res.status).toBe(405);
    expectEnvelope(res.body, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toContain('POST');
    expect(res.headers.get('allow')).toContain('GET');
  });

  it('413 PAYLOAD_TOO_LARGE above 1 MiB', async () => {
    const res = await testApi(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'x', description: 'y'.repeat(1024 * 1024 + 10) });
    expect(res.status).toBe(413);
    expectEnvelope(res.body, 'PAYLOAD_TOO_LARGE');
  });

  it('400 VALIDATION_ERROR for malformed JSON and for an empty JSON body', async () => {
    const bad = await testApi(t.token).request('POST', `/${t.projectId}/manual-test-suites`, {
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expectEnvelope(bad.body, 'VALIDATION_ERROR');
    const empty = await testApi(t.token).request('POST', `/${t.projectId}/manual-test-suites`, {
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(400);
    expectEnvelope(empty.body, 'VALIDATION_ERROR');
  });

  it('415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON', async () => {
    const res = await testApi(t.token).request('POST', `/${t.projectId}/manual-test-suites`, {
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expectEnvelope(res.body, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('400 VALIDATION_ERROR with details for unknown body properties (rejected, not stripped)', async () => {
    const res = await testApi(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'x', project: 'p' });
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'VALIDATION_ERROR');
    expect(res.body.error.details).toEqual([{ path: 'body.project', message: 'unknown property "project"' }]);
  });

  it('strips unknown query keys instead of failing', async () => {
    const res = await testApi(t.token).get(`/${t.projectId}/manual-test-suites?foo=bar&dateRange=7d`);
    expect(res.status).toBe(200);
  });

  it('sets security headers and a request id, and echoes a caller request id', async () => {
    const res = await testApi(t.token).get(`/${t.projectId}/token-info`, { headers: { 'x-request-id': 'trace-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('strict-transport-security')).toContain('max-age=');
    const other = await testApi(t.token).get(`/${t.projectId}/token-info`, {
      headers: { 'x-request-id': 'bad id with spaces and "quotes"' },
    });
    expect(other.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the same routes under the /api/public/v1 alias', async () => {
    const res = await testApi(t.token).get(`/api/public/v1/${t.projectId}/token-info`);
    expect(res.status).toBe(200);
    expect(res.body.data.projectName).toBe('Test project');
  });

  it('has /healthz and /readyz without authentication', async () => {
    expect((await testApi().get('/healthz')).status).toBe(200);
    const ready = await testApi().get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ identity: true, redis: true });
    expect(ready.body.services).toMatchObject({ 'manual-testing': true, runs: true, analytics: true, webhooks: true, reports: true });
    expect(testSystem().gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('pagination rules (spec §4.1, CONTRACT §9)', () => {
  let p: Tenant;
  beforeAll(async () => {
    p = await admin.tenant('owner');
    for (let i = 1; i <= 12; i++) await testApi(p.token).post(`/${p.projectId}/manual-test-suites`, { name: `Suite ${i}` });
  });
  const list = (q: string) => testApi(p.token).get(`/${p.projectId}/manual-test-suites${q}`);

  it.each(['7', '0', '200', '-10', 'abc', '10.5', '1000'])('limit=%s → 400 INVALID_LIMIT', async (limit) => {
    const res = await list(`?limit=${limit}`);
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'INVALID_LIMIT');
  });

  it.each(['0', '-1', 'x', '1.5'])('page=%s → 400 VALIDATION_ERROR', async (page) => {
    const res = await list(`?page=${page}`);
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'VALIDATION_ERROR');
  });

  it.each([10, 25, 50, 100])('limit=%i is accepted', async (limit) => {
    const res = await list(`?limit=${limit}`);
    expect(res.status).toBe(200);
    expect(res.body.pagination.limit).toBe(limit);
  });

  it('defaults to page 1, limit 10, and returns the pagination object with hasMore', async () => {
    const first = await list('');
    expect(first.body.data).toHaveLength(10);
    expect(first.body.pagination).toEqual({ page: 1, limit: 10, total: 12, hasNext: true, hasPrev: false, hasMore: true });
    const second = await list('?page=2');
    expect(second.body.data).toHaveLength(2);
    expect(second.body.pagination).toEqual({ page: 2, limit: 10, total: 12, hasNext: false, hasPrev: true, hasMore: false });
    const beyond = await list('?page=5');
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.pagination.hasPrev).toBe(true);
  });
});

describe('request id propagation', () => {
  it('follows a request from the gateway into the service it calls (same id in both logs)', async () => {
    const id = `trace-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
    const res = await testApi(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'traced' }, { headers: { 'x-request-id': id } });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(id);
    const logOf = (name: string) =>
      fs
        .readFileSync(path.join(testSystem().logDir, `${name}.log`), 'utf8')
        .split('\n')
        .filter(Boolean);
    let serviceLines: any[] = [];
    for (let i = 0; i < 50 && serviceLines.length === 0; i++) {
      serviceLines = logOf('manual-testing')
        .filter((l) => l.startsWith('{')) // pino lines (Node may print a warning of its own)
        .map((l) => JSON.parse(l))
        .filter((l) => l.reqId === id);
      if (serviceLines.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(serviceLines).toEqual([
      expect.objectContaining({
        service: 'manual-testing',
        method: 'assay.manualtesting.v1.ManualTestingService/CreateSuite',
        outcome: 'ok',
      }),
    ]);
    const gatewayLines = logOf('gateway').filter((l) => l.includes(id));
    expect(gatewayLines.length).toBeGreaterThan(0);
    // and no secret in any log line
    expect(logOf('gateway').some((l) => l.includes(t.token))).toBe(false);
  });
});

describe('input Postgres cannot store', () => {
  it('answers 400 VALIDATION_ERROR (not 500) for a NUL character in a body text, a query value or a path id', async () => {
    const body = await testApi(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'zero-byte\u0000suite' });
    expect(body.status).toBe(400);
    expectEnvelope(body.body, 'VALIDATION_ERROR');
    const query = await testApi(t.token).get(`/${t.projectId}/manual-test-cases?search=a%00b`);
    expect(query.status).toBe(400);
    expectEnvelope(query.body, 'VALIDATION_ERROR');
    const path = await testApi(t.token).get(`/${t.projectId.slice(0, 10)}%00/token-info`);
    expect(path.status).toBe(404);
    expectEnvelope(path.body, 'NOT_FOUND');
    // and nothing was written
    const list = await testApi(t.token).get(`/${t.projectId}/manual-test-suites?limit=100`);
    expect(JSON.stringify(list.body)).not.toContain('zero-byte');
  });
});
