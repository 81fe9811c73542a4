/**
 * Ingestion of REAL reports (produced by running @playwright/test on the browser-less fixture project with its
 * JSON and JUnit reporters) through the gateway, and every read built on them: testStats figure by figure
 * against what the report says, the list and detail shapes, test cases, history, debug bundles.
 */
import { testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';
import { realPlaywrightReport, statsFromReport, type RealReport } from './support/playwright';

jest.setTimeout(120000);
const admin = testAdmin();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ID = /^[0-9a-f]{24}$/;

const ingest = (token: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  testApi(token).request('POST', `/api/v1/ingest${path}`, {
    rawBody: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('runs: ingestion of real Playwright reports and the reads', () => {
  let t: Tenant;
  let key: string;
  let report: RealReport;
  let expected: ReturnType<typeof statsFromReport>;
  let runId: string;
  let cases: any[];
  const metadata = {
    git: { branch: 'main', commit: { hash: 'abc123', message: 'Fix checkout', author: 'Ada' } },
    environment: 'staging',
    ci: { provider: 'github', pipelineId: '42', buildUrl: 'https://ci.example.test/42' },
    tags: ['nightly'],
  };

  beforeAll(async () => {
    [t, report] = await Promise.all([admin.tenant('member'), realPlaywrightReport()]);
    key = (await admin.apiKey(t.projectId)).token;
    expected = statsFromReport(report.json);
  });

  it('the fixture report has every outcome (sanity of the real report)', () => {
    expect(expected).toEqual({ total: 6, passed: 2, failed: 2, skipped: 1, flaky: 1, timedOut: 1, totalAttempts: 9, retriedTests: 3 });
  });

  it('ingests the Playwright JSON report with a project api key: 201 and testStats exactly as the report says', async () => {
    const res = await ingest(key, `/${t.projectId}/playwright`, { ...report.json, metadata });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: { runId: expect.stringMatching(ID), counter: 1, status: 'failed', url: expect.any(String), testStats: expected },
    });
    runId = res.body.data.runId;
    expect(res.body.data.url).toBe(`${testSystem().gatewayUrl}/projects/${t.projectId}/runs/${runId}`);
  });

  it('lists the run in the exact TestRunListItem shape', async () => {
    const res = await testApi(t.token).get(`/${t.projectId}/test-runs`);
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, limit: 10, total: 1, hasNext: false, hasPrev: false, hasMore: false });
    expect(res.body.data).toEqual([
      {
        id: runId,
        counter: 1,
        status: 'failed',
        startTime: expect.stringMatching(ISO),
        endTime: expect.stringMatching(ISO),
        duration: Math.round(report.json.stats.duration),
        testStats: expected,
        metadata: { git: { branch: 'main', environment: 'staging', commit: { hash: 'abc123', message: 'Fix checkout', author: 'Ada' } } },
        url: `${testSystem().gatewayUrl}/projects/${t.projectId}/runs/${runId}`,
      },
    ]);
    expect(res.body.data[0].startTime).toBe(new Date(report.json.stats.startTime).toISOString());
  });

  it('applies the test-runs query rules: only start_date/end_date, RFC 3339, together', async () => {
    const api = testApi(t.token);
    const only = await api.get(`/${t.projectId}/test-runs?start_date=2020-01-01T00:00:00Z`);
    expect(only.status).toBe(400);
    expect(only.body.error.code).toBe('VALIDATION_ERROR');
    expect(only.body.error.details).toEqual([{ path: 'query.end_date', message: expect.any(String) }]);
    const bad = await api.get(`/${t.projectId}/test-runs?start_date=2020-01-01&end_date=2030-01-01T00:00:00Z`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('query.start_date');
    const inRange = await api.get(`/${t.projectId}/test-runs?start_date=2020-01-01T00:00:00Z&end_date=2099-01-01T00:00:00%2B02:00`);
    expect(inRange.body.data).toHaveLength(1);
    const outside = await api.get(`/${t.projectId}/test-runs?start_date=2020-01-01T00:00:00Z&end_date=2020-02-01T00:00:00Z`);
    expect(outside.body.data).toHaveLength(0);
    // Keys the endpoint does not allow are stripped, not errors (spec §4.1).
    const stripped = await api.get(`/${t.projectId}/test-runs?dateRange=7d&startDate=2020-01-01&period=x`);
    expect(stripped.status).toBe(200);
    expect(stripped.body.data).toHaveLength(1);
    expect((await api.get(`/${t.projectId}/test-runs?limit=7`)).body.error.code).toBe('INVALID_LIMIT');
  });

  it('serves the run detail: sections only when included', async () => {
    const plain = await testApi(t.token).get(`/${t.projectId}/test-runs/${runId}`);
    expect(plain.status).toBe(200);
    const d = plain.body.data;
    expect(d.testStats).toEqual(expected);
    expect(d.errorCategory).toEqual({ total: 2, categories: expect.objectContaining({ assertion: 1, timeout: 1 }) });
    expect(d.liveStats).toEqual(expect.objectContaining({ isRunning: false, completed: 6, quarantined: 0 }));
    expect(d.tagStats).toEqual([{ tag: 'smoke', total: 1, passed: 1, failed: 0, flaky: 0, skipped: 0 }]);
    for (const s of ['errorGroups', 'specs', 'coverage', 'artifacts']) expect(d[s] ?? null).toBeNull();

    const all = (await testApi(t.token).get(`/${t.projectId}/test-runs/${runId}?include=all`)).body.data;
    expect(all.errorGroups.map((g: any) => g.message).join('\n')).toContain('expect(received).toBe(expected)');
    expect(all.specs).toEqual([
      expect.objectContaining({
        id: expect.stringMatching(ID),
        file: 'checkout.pw.ts',
        total: 6,
        passed: 2,
        failed: 2,
        flaky: 1,
        skipped: 1,
      }),
    ]);
    expect(all.specs[0].tests).toHaveLength(6);
    expect(all.coverage).toBeNull();
    expect(all.artifacts.items).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'receipt', contentType: 'text/plain' })]));
    const errorsOnly = (await testApi(t.token).get(`/${t.projectId}/test-runs/${runId}?include=errors`)).body.data;
    expect(errorsOnly.errorGroups.length).toBeGreaterThan(0);
    expect(errorsOnly.specs).toBeUndefined();
    expect((await testApi(t.token).get(`/${t.projectId}/test-runs/${runId}?include=bogus`)).status).toBe(400);
    expect((await testApi(t.token).get(`/${t.projectId}/test-runs/000000000000000000000000`)).status).toBe(404);
  });

  it('lists the test cases of the run, flattened, with a status filter', async () => {
    const res = await testApi(t.token).get(`/${t.projectId}/test-runs/${runId}/test-cases?limit=25`);
    expect(res.status).toBe(200);
    cases = res.body.data;
    expect(res.body.pagination.total).toBe(6);
    const byTitle = Object.fromEntries(cases.map((c) => [c.fullTitle, c]));
    expect(byTitle['passes with steps and an attachment']).toEqual(
      expect.objectContaining({ status: 'passed', attempts: 1, retries: 0, tags: ['smoke'], file: 'checkout.pw.ts', projectName: 'node' }),
    );
    expect(byTitle['fails on the total']).toEqual(expect.objectContaining({ status: 'failed', attempts: 2, retries: 1 }));
    expect(byTitle['fails on the total'].error.message).toContain('expect(received).toBe(expected)');
    expect(byTitle['is flaky: fails first, passes on retry'].status).toBe('flaky');
    expect(byTitle['is skipped'].status).toBe('skipped');
    expect(byTitle['times out'].status).toBe('timedOut');
    expect(byTitle['coupon › applies a discount']).toEqual(
      expect.objectContaining({ status: 'passed', titlePath: ['coupon', 'applies a discount'] }),
    );
    const failed = await testApi(t.token).get(`/${t.projectId}/test-runs/${runId}/test-cases?status=flaky`);
    expect(failed.body.data.map((c: any) => c.title)).toEqual(['is flaky: fails first, passes on retry']);
  });

  it('shows one test case with attempts, steps, attachments and history', async () => {
    const passing = cases.find((c) => c.title === 'passes with steps and an attachment');
    const res = await testApi(t.token).get(`/${t.projectId}/test-cases/${passing.id}?include=history`);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.metadata.run.id).toBe(runId);
    expect(d.metadata.test.annotations).toEqual([{ type: 'testcase', description: 'TC-1' }]);
    expect(d.overview.steps.map((s: any) => s.title)).toEqual(['add to cart', 'pay']);
    expect(d.overview.steps[0].steps.map((s: any) => s.title)).toEqual(['pick the item']);
    expect(d.overview.attachments).toEqual([expect.objectContaining({ name: 'receipt', contentType: 'text/plain', retry: 0 })]);
    expect(d.history.summary).toEqual(expect.objectContaining({ totalRuns: 1, passed: 1, failed: 0, stabilityScore: 100 }));
    expect(d.url).toBe(`${testSystem().gatewayUrl}/projects/${t.projectId}/runs/${runId}/test-cases/${passing.id}`);

    const flaky = cases.find((c) => c.status === 'flaky');
    const f = (await testApi(t.token).get(`/${t.projectId}/test-cases/${flaky.id}`)).body.data;
    expect(f.overview.attempts.map((a: any) => a.status)).toEqual(['failed', 'passed']);
    expect(f.overview.attempts[0].error.message).toContain('expect(received).toBe(expected)');
    expect(f.history).toBeUndefined();
  });

  it('ingests the JUnit report of the same run (JUnit carries no retries: flaky reads as passed)', async () => {
    const res = await testApi(key).request('POST', `/api/v1/ingest/${t.projectId}/junit?branch=main&environment=ci&tags=junit,nightly`, {
      rawBody: report.junit,
      headers: { 'content-type': 'application/xml' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.testStats).toEqual({
      total: 6,
      passed: 3,
      failed: 2,
      skipped: 1,
      flaky: 0,
      timedOut: 1,
      totalAttempts: 6,
      retriedTests: 0,
    });
    expect(res.body.data.counter).toBe(2);
    expect(res.body.data.status).toBe('failed');
  });

  it('builds debug bundles at test, suite and run scope, and as Markdown', async () => {
    const failing = cases.find((c) => c.title === 'fails on the total');
    const res = await testApi(t.token).get(`/${t.projectId}/debug-bundle?caseId=${failing.id}`);
    expect(res.status).toBe(200);
    const b = res.body.data;
    expect(b.scope).toBe('test');
    expect(b.error.message).toContain('Expected: 42');
    expect(b.steps.map((s: any) => s.title)).toEqual(['compute the total']);
    expect(b.attempts).toHaveLength(2);
    expect(b.failureWindow).toEqual(expect.objectContaining({ branch: 'main', lastPassing: null }));
    expect(b.failureWindow.firstFailing.runId).toBe(runId);
    expect(b.links).toEqual(
      expect.objectContaining({ run: expect.stringContaining(runId), testCase: expect.stringContaining(failing.id) }),
    );
    expect(b.retryCommand).toBe(`npx playwright test -g 'fails on the total' --project='node' -- 'checkout.pw.ts'`);
    expect(b).toHaveProperty('artifacts');
    expect(b).toHaveProperty('trace');

    const md = await testApi(t.token).get(`/${t.projectId}/debug-bundle?caseId=${failing.id}&format=md`);
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(md.text).toMatch(/^# Debug bundle: fails on the total/);
    expect(md.text).toContain('## Failure window');
    expect(md.text).toContain("-- 'checkout.pw.ts'");

    const run = (await testApi(t.token).get(`/${t.projectId}/debug-bundle?runId=${runId}`)).body.data;
    expect(run.scope).toBe('run');
    expect(run.failingTests.map((x: any) => x.title).sort()).toEqual(['fails on the total', 'times out']);
    const suiteId = run.failingSuites[0].id;
    const suite = (await testApi(t.token).get(`/${t.projectId}/debug-bundle?suiteId=${suiteId}&runId=${runId}`)).body.data;
    expect(suite.scope).toBe('suite');
    expect(suite.flakyTests.map((x: any) => x.title)).toEqual(['is flaky: fails first, passes on retry']);
    expect((await testApi(t.token).get(`/${t.projectId}/debug-bundle`)).status).toBe(400);
  });

  it('pages through test history with offset and limit', async () => {
    const passing = cases.find((c) => c.title === 'passes with steps and an attachment');
    // A second Playwright run of the same tests.
    await ingest(key, `/${t.projectId}/playwright`, { ...report.json, metadata });
    const res = await testApi(t.token).get(`/${t.projectId}/test-cases/history?testId=${passing.testId}&limit=10&offset=0`);
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ offset: 0, limit: 10, total: 2, hasNext: false, hasMore: false });
    expect(res.body.data.map((h: any) => h.runCounter)).toEqual([3, 1]);
    const second = await testApi(t.token).get(
      `/${t.projectId}/test-cases/history?title=${encodeURIComponent('passes with steps and an attachment')}&limit=10&offset=1`,
    );
    // By title, the JUnit upload of the same test (another identity: no project name) counts too.
    expect(second.body.pagination).toEqual({ offset: 1, limit: 10, total: 3, hasNext: false, hasMore: false });
    expect(second.body.data.map((h: any) => h.runCounter)).toEqual([3, 1]);
    expect((await testApi(t.token).get(`/${t.projectId}/test-cases/history`)).status).toBe(400);
  });

  it('refuses a malformed report with the path of the problem and stores nothing', async () => {
    const before = (await testApi(t.token).get(`/${t.projectId}/test-runs`)).body.pagination.total;
    const broken = structuredClone(report.json);
    broken.suites[0].specs[2].tests[0].results[1].status = 'exploded';
    const res = await ingest(key, `/${t.projectId}/playwright`, broken);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual([
      { path: 'body.suites[0].specs[2].tests[0].results[1].status', message: expect.stringContaining('one of') },
    ]);
    const notJson = await ingest(key, `/${t.projectId}/playwright`, '{"suites": [');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.details[0].path).toBe('body');
    const badXml = await testApi(key).request('POST', `/api/v1/ingest/${t.projectId}/junit`, {
      rawBody: '<testsuites><testsuite></testsuites>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(badXml.status).toBe(400);
    expect((await ingest(key, `/${t.projectId}/playwright`, 'x', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await testApi(t.token).get(`/${t.projectId}/test-runs`)).body.pagination.total).toBe(before);
  });

  it('authorizes ingestion: a viewer is refused, an unknown project is 404, no token is 401', async () => {
    const viewer = await admin.member(t.orgId, 'viewer', { projects: [t.projectId] });
    expect((await ingest(viewer.token, `/${t.projectId}/runs`, {})).status).toBe(403);
    const other = await admin.tenant('owner');
    expect((await ingest(key, `/${other.projectId}/runs`, {})).status).toBe(404);
    const none = await testApi().request('POST', `/api/v1/ingest/${t.projectId}/runs`, {
      rawBody: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
  });

  it('streams a run: start → batches (re-sent batches never duplicate) → finish (twice is harmless)', async () => {
    const s = await ingest(t.token, `/${t.projectId}/runs`, { metadata, totalTests: 2 });
    expect(s.status).toBe(201);
    expect(s.body.data).toEqual({
      runId: expect.stringMatching(ID),
      counter: expect.any(Number),
      status: 'running',
      url: expect.any(String),
    });
    const id = s.body.data.runId;
    const item = (retry: number, status: string) => ({
      file: 'cart.spec.ts',
      titlePath: ['cart', 'adds'],
      projectName: 'chromium',
      status,
      duration: 10,
      retry,
      errors: status === 'failed' ? [{ message: 'boom 1' }] : [],
      steps: [{ title: 'click', duration: 3 }],
      attachments: [],
      annotations: [],
      tags: ['@cart'],
    });
    const batch = { results: [item(0, 'failed'), { ...item(0, 'passed'), titlePath: ['cart', 'removes'] }] };
    const r1 = await ingest(t.token, `/${t.projectId}/runs/${id}/results`, batch);
    expect(r1.status).toBe(200);
    expect(r1.body.data).toEqual({ runId: id, accepted: 2, tests: 2, newResults: 2, quarantined: [] });
    const again = await ingest(t.token, `/${t.projectId}/runs/${id}/results`, batch);
    expect(again.body.data.newResults).toBe(0);
    await ingest(t.token, `/${t.projectId}/runs/${id}/results`, { results: [item(1, 'passed')] });
    const running = (await testApi(t.token).get(`/${t.projectId}/test-runs/${id}`)).body.data;
    expect(running.status).toBe('running');
    expect(running.liveStats).toEqual(expect.objectContaining({ isRunning: true, completed: 2, expected: 2, remaining: 0, progress: 100 }));
    const f = await ingest(t.token, `/${t.projectId}/runs/${id}/finish`, {});
    expect(f.status).toBe(200);
    expect(f.body.data.status).toBe('passed');
    expect(f.body.data.testStats).toEqual({
      total: 2,
      passed: 1,
      failed: 0,
      skipped: 0,
      flaky: 1,
      timedOut: 0,
      totalAttempts: 3,
      retriedTests: 1,
    });
    const twice = await ingest(t.token, `/${t.projectId}/runs/${id}/finish`, { status: 'failed' });
    expect(twice.body.data.status).toBe('passed');
    const late = await ingest(t.token, `/${t.projectId}/runs/${id}/results`, batch);
    expect(late.status).toBe(409);
    const badItem = await ingest(t.token, `/${t.projectId}/runs/${id}/results`, { results: [{ file: 'x' }] });
    expect(badItem.status).toBe(400);
    expect(badItem.body.error.details[0].path).toBe('body.results[0].titlePath');
    expect((await ingest(t.token, `/${t.projectId}/runs/${id}/finish`, { status: 'weird' })).status).toBe(400);
    expect((await ingest(t.token, `/${t.projectId}/runs`, { nope: 1 })).body.error.details[0].path).toBe('body.nope');
  });

  it('honours Idempotency-Key on ingestion creates whose bodies stream through the gateway', async () => {
    const key1 = `start-${Date.now()}`;
    const body = { metadata, totalTests: 3 };
    const first = await ingest(t.token, `/${t.projectId}/runs`, body, { 'idempotency-key': key1 });
    expect(first.status).toBe(201);
    const again = await ingest(t.token, `/${t.projectId}/runs`, body, { 'idempotency-key': key1 });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body); // the same run, not a second one
    const other = await ingest(t.token, `/${t.projectId}/runs`, { ...body, totalTests: 4 }, { 'idempotency-key': key1 });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSE');
    const runs = (await testApi(t.token).get(`/${t.projectId}/test-runs?limit=100`)).body.data.filter(
      (r: any) => r.id === first.body.data.runId,
    );
    expect(runs).toHaveLength(1);
    // a one-shot report too: the retry answers the original run
    const key2 = `report-${Date.now()}`;
    const up1 = await ingest(key, `/${t.projectId}/playwright`, { ...report.json, metadata }, { 'idempotency-key': key2 });
    const up2 = await ingest(key, `/${t.projectId}/playwright`, { ...report.json, metadata }, { 'idempotency-key': key2 });
    expect(up1.status).toBe(201);
    expect(up2.headers.get('idempotent-replayed')).toBe('true');
    expect(up2.body.data.runId).toBe(up1.body.data.runId);
  });

  it('accepts a report of almost 64 MiB (stored texts capped) and refuses one over the limit with 413', async () => {
    // The real report, its first test's stdout padded to just under INGEST_BODY_LIMIT_BYTES (64 MiB).
    const big = JSON.parse(JSON.stringify(report.json));
    const firstResult = big.suites[0].specs[0].tests[0].results[0];
    const base = Buffer.byteLength(JSON.stringify({ ...big, metadata }));
    const line = 'x'.repeat(1024 * 1024 - 16);
    const lines = Math.floor((64 * 1024 * 1024 - base - 4096) / (line.length + 16));
    firstResult.stdout = Array.from({ length: lines }, (_, i) => ({ text: `${i} ${line}` }));
    const body = JSON.stringify({ ...big, metadata });
    expect(Buffer.byteLength(body)).toBeGreaterThan(63 * 1024 * 1024);
    const res = await ingest(key, `/${t.projectId}/playwright`, body);
    expect(res.status).toBe(201);
    expect(res.body.data.testStats).toEqual(expected);
    const over = await ingest(key, `/${t.projectId}/playwright`, body + ' '.repeat(1024 * 1024));
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('documents the ingestion routes in OpenAPI and reaches the runs service from /readyz', async () => {
    const doc = (await testApi().get('/api/v1/public/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/public/{projectId}/test-runs', '/api/v1/public/{projectId}/debug-bundle']),
    );
    const ready = await testApi().get('/readyz');
    expect(ready.body.services.runs).toBe(true);
  });
});
