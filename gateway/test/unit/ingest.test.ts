/**
 * The `ingest` family (the ingestion API and the compatibility upload) over `app.inject`. Bodies stream to the
 * runs service's internal HTTP port: here a real local HTTP server stands in for that port and records what
 * arrives (path, query, the gateway's internal credential, the caller principal, content type, the body bytes)
 * and answers as the service would. Asserted: the forwarding, the success envelope around the service's data,
 * its error envelopes relayed as they are, the compatibility upload's answers (the quota case through
 * RunsService.GetUsage), and what the gateway refuses itself (authentication, roles, the body limit, a service
 * that cannot be reached).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { parseToken } from '@assay/contracts/identity/tokens';
import { decodePrincipal, INTERNAL_AUTH_HEADER, PRINCIPAL_HEADER, type Principal } from '@assay/service-kit';
import { gatewayHarness, type Harness } from './harness';

interface Received {
  method: string;
  url: string;
  credential: string | undefined;
  principal: Principal | undefined;
  contentType: string | undefined;
  body: string;
}

/** What the stand-in service answers next: status and JSON body. */
let answer: { status: number; body: unknown } = { status: 200, body: {} };
const received: Received[] = [];
const service = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({
      method: req.method ?? '',
      url: req.url ?? '',
      credential: req.headers[INTERNAL_AUTH_HEADER] as string | undefined,
      principal: decodePrincipal(req.headers[PRINCIPAL_HEADER] as string | undefined),
      contentType: req.headers['content-type'],
      body: Buffer.concat(chunks).toString('utf8'),
    });
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
});

const LIMIT = 2048;
const run = { runId: 'r'.repeat(24), counter: 7, status: 'passed', url: 'https://ui.example.test/runs/r' };
const stats = { total: 1, passed: 1, failed: 0, skipped: 0, flaky: 0, timedOut: 0, totalAttempts: 1, retriedTests: 0 };

let h: Harness;
beforeAll(async () => {
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', () => resolve()));
  h = await gatewayHarness(
    {
      runs: {
        async getUsage() {
          return {
            planName: 'starter',
            periodStart: timestampFromDate(new Date('2026-03-01T00:00:00Z')),
            periodEnd: timestampFromDate(new Date('2026-04-01T00:00:00Z')),
            testResultsPerMonth: 100n,
            usedTestResults: 100n,
            usedRuns: 3n,
            remaining: 0n,
          };
        },
      },
    },
    { INGEST_BODY_LIMIT_BYTES: String(LIMIT) },
  );
  // The harness's runs HTTP port points nowhere; this test's stand-in takes its place.
  h.app.services.runsHttpUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await h.close();
  service.closeAllConnections();
  await new Promise((resolve) => service.close(resolve));
});
beforeEach(() => {
  received.length = 0;
  h.calls.length = 0;
  answer = { status: 200, body: {} };
});

const I = () => `/api/v1/ingest/${h.projectId}`;
const json = { 'content-type': 'application/json' };

describe('ingestion routes', () => {
  it('start: streams the body as it came to /ingest/{projectId}/runs with the credential and the caller; 201 with the data in the envelope', async () => {
    answer = { status: 201, body: { runId: run.runId, counter: 7, url: run.url, status: 'running' } };
    const payload = '{"metadata":{"git":{"branch":"main"}},  "totalTests": 3}';
    const res = await h.request({ as: 'api_key', method: 'POST', url: `${I()}/runs`, headers: json, payload });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ success: true, data: { runId: run.runId, counter: 7, status: 'running', url: run.url } });
    expect(received).toEqual([
      {
        method: 'POST',
        url: `/ingest/${h.projectId}/runs`,
        credential: expect.stringMatching(/^Bearer [0-9a-f]{64}$/),
        principal: h.caller('api_key').principal,
        contentType: 'application/json',
        body: payload,
      },
    ]);
  });

  it('results, finish, reports and the skip list go to their paths; the JUnit query goes along', async () => {
    const runId = 'r'.repeat(24);
    answer = { status: 200, body: { runId, accepted: 1, tests: 1, newResults: 1, quarantined: [] } };
    expect(
      (await h.request({ method: 'POST', url: `${I()}/runs/${runId}/results`, headers: json, payload: { results: [] } })).json(),
    ).toEqual({
      success: true,
      data: { runId, accepted: 1, tests: 1, newResults: 1, quarantined: [] },
    });
    answer = { status: 200, body: { ...run, testStats: stats } };
    await h.request({ method: 'POST', url: `${I()}/runs/${runId}/finish` });
    answer = { status: 201, body: { ...run, testStats: stats } };
    const pw = await h.request({ method: 'POST', url: `${I()}/playwright`, headers: json, payload: { suites: [] } });
    expect([pw.statusCode, pw.json().data.testStats]).toEqual([201, stats]);
    await h.request({
      method: 'POST',
      url: `${I()}/junit?branch=dev&tags=a,b`,
      headers: { 'content-type': 'application/xml' },
      payload: '<testsuites/>',
    });
    answer = { status: 200, body: { rules: [], tests: [] } };
    await h.request({ as: 'viewer', method: 'GET', url: `${I()}/skip-list` });
    expect(received.map((r) => [r.method, r.url, r.contentType])).toEqual([
      ['POST', `/ingest/${h.projectId}/runs/${runId}/results`, 'application/json'],
      ['POST', `/ingest/${h.projectId}/runs/${runId}/finish`, undefined],
      ['POST', `/ingest/${h.projectId}/playwright`, 'application/json'],
      ['POST', `/ingest/${h.projectId}/junit?branch=dev&tags=a,b`, 'application/xml'],
      ['GET', `/ingest/${h.projectId}/skip-list`, undefined],
    ]);
    expect(received[3]!.body).toBe('<testsuites/>');
  });

  it("relays the service's error envelope with its status", async () => {
    answer = {
      status: 400,
      body: {
        success: false,
        error: { code: 'VALIDATION_ERROR', message: 'bad', details: [{ path: 'body.suites', message: 'is required' }] },
      },
    };
    const res = await h.request({ method: 'POST', url: `${I()}/playwright`, headers: json, payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(answer.body);
  });

  it('refuses before forwarding: no token 401, a viewer or a token of another project, a report over the limit', async () => {
    expect((await h.app.inject({ method: 'POST', url: `${I()}/runs`, headers: json, payload: {} })).statusCode).toBe(401);
    expect((await h.request({ as: 'viewer', method: 'POST', url: `${I()}/runs`, headers: json, payload: {} })).statusCode).toBe(403);
    expect((await h.request({ method: 'POST', url: `/api/v1/ingest/${'9'.repeat(24)}/runs`, headers: json, payload: {} })).statusCode).toBe(
      404,
    );
    const big = await h.request({ method: 'POST', url: `${I()}/playwright`, headers: json, payload: { pad: 'x'.repeat(LIMIT) } });
    expect([big.statusCode, big.json().error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(received).toEqual([]);
  });

  it('answers 503 with Retry-After when the runs service cannot be reached', async () => {
    const url = h.app.services.runsHttpUrl;
    h.app.services.runsHttpUrl = 'http://127.0.0.1:1';
    try {
      const res = await h.request({ method: 'POST', url: `${I()}/runs`, headers: json, payload: {} });
      expect([res.statusCode, res.json().error.code, res.headers['retry-after']]).toEqual([503, 'SERVICE_UNAVAILABLE', '5']);
    } finally {
      h.app.services.runsHttpUrl = url;
    }
  });
});

describe('compatibility upload', () => {
  const uploadKey = () => `trx_production_${parseToken(h.caller('api_key').token)}`;
  const upload = (key: string) =>
    h.app.inject({ method: 'POST', url: '/api/reports/playwright', headers: { ...json, 'x-api-key': key }, payload: { suites: [] } });

  it("forwards to the key's project and answers {testRunId, projectId, viewUrl, status}", async () => {
    answer = { status: 200, body: { ...run, testStats: stats } };
    const res = await upload(uploadKey());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: { testRunId: run.runId, projectId: h.projectId, viewUrl: run.url, status: 'passed' },
    });
    expect(received.map((r) => [r.url, r.principal])).toEqual([
      [`/ingest/${h.projectId}/compat/playwright`, h.caller('api_key').principal],
    ]);
  });

  it('over the plan: 200 with success false and the usage numbers (from RunsService.GetUsage)', async () => {
    answer = {
      status: 429,
      body: { success: false, error: { code: 'QUOTA_LIMIT_EXCEEDED', message: 'The plan allows 100 test results per month' } },
    };
    const res = await upload(uploadKey());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: false,
      message: 'The plan allows 100 test results per month',
      data: {
        code: 'QUOTA_LIMIT_EXCEEDED',
        planName: 'starter',
        limit: 100,
        used: 100,
        remaining: 0,
        resetDate: '2026-04-01T00:00:00.000Z',
        organizationId: h.orgId,
        projectId: h.projectId,
      },
    });
    expect(h.calls.map((c) => [c.method, c.principal])).toEqual([['getUsage', h.caller('api_key').principal]]);
  });

  it('relays another error of the service; refuses a key that is no project api key, before forwarding', async () => {
    answer = { status: 400, body: { success: false, error: { code: 'VALIDATION_ERROR', message: 'body.suites: is required' } } };
    const bad = await upload(uploadKey());
    expect([bad.statusCode, bad.json()]).toEqual([400, answer.body]);
    received.length = 0;
    const pat = `trx_production_${parseToken(h.caller('owner').token)}`;
    expect((await upload(pat)).statusCode).toBe(401);
    expect((await upload('trx_production_nothex')).statusCode).toBe(401);
    expect(received).toEqual([]);
  });
});
