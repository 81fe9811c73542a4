/**
 * The dashboard's runs running now (GET /dashboard: `activeRuns`, `runCounts.running`) over HTTP: each is the run as
 * the test-runs list shows it at that moment, its counts growing as its results stream in, newest first; a
 * finished run leaves the list at once and counts as finished once analytics has folded it. When analytics cannot
 * reach the runs service the dashboard answers 503, not figures without the runs running now.
 */
import { resultItem, startPrivateSystem, testAdmin, testApi, waitUntil, type PrivateSystem, type Tenant } from '@assay/testkit';

jest.setTimeout(120000);
const admin = testAdmin();

describe('dashboard: the runs running now', () => {
  let t: Tenant;
  const ingest = (path: string, body: unknown) =>
    testApi(t.token).request('POST', `/api/v1/ingest/${t.projectId}${path}`, {
      rawBody: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
  const dashboard = async () => {
    const res = await testApi(t.token).get(`/${t.projectId}/dashboard`);
    expect(res.status).toBe(200);
    return res.body.data;
  };
  const listed = async (id: string) =>
    (await testApi(t.token).get(`/${t.projectId}/test-runs?limit=10`)).body.data.find((r: any) => r.id === id);
  const start = async (branch: string) => {
    const res = await ingest('/runs', {
      metadata: { git: { branch, commit: { hash: 'abc123', message: 'wip', author: 'Ada' } }, environment: 'staging' },
      totalTests: 4,
    });
    expect(res.status).toBe(201);
    return res.body.data.runId as string;
  };
  const result = (title: string, status: 'passed' | 'failed' | 'skipped') => resultItem('cart.spec.ts', ['cart', title], status);

  beforeAll(async () => {
    t = await admin.tenant('member');
  });

  it('lists each running run as the test-runs list does, with the counts it has now, until it finishes', async () => {
    const first = await start('main');
    let d = await dashboard();
    expect(d.runCounts.running).toBe(1);
    expect(d.activeRuns).toEqual([{ ...(await listed(first)), duration: expect.any(Number) }]);
    expect(d.activeRuns[0].testStats.total).toBe(0);

    expect((await ingest(`/runs/${first}/results`, { results: [result('adds', 'passed'), result('removes', 'failed')] })).status).toBe(200);
    d = await dashboard();
    expect(d.activeRuns).toEqual([{ ...(await listed(first)), duration: expect.any(Number) }]);
    expect(d.activeRuns[0].testStats).toEqual(expect.objectContaining({ total: 2, passed: 1, failed: 1 }));

    const second = await start('feature/cart');
    expect((await ingest(`/runs/${second}/results`, { results: [result('pays', 'skipped')] })).status).toBe(200);
    expect((await ingest(`/runs/${first}/results`, { results: [result('empties', 'passed')] })).status).toBe(200);
    d = await dashboard();
    expect(d.runCounts.running).toBe(2);
    expect(d.activeRuns).toEqual([
      { ...(await listed(second)), duration: expect.any(Number) },
      { ...(await listed(first)), duration: expect.any(Number) },
    ]);
    expect(d.activeRuns.map((r: any) => [r.id, r.testStats.total, r.testStats.passed, r.testStats.skipped])).toEqual([
      [second, 1, 0, 1],
      [first, 3, 2, 0],
    ]);

    expect((await ingest(`/runs/${first}/finish`, {})).status).toBe(200);
    d = await dashboard();
    expect(d.runCounts.running).toBe(1);
    expect(d.activeRuns.map((r: any) => r.id)).toEqual([second]);
    await waitUntil(
      async () => (await dashboard()).runCounts.total === 1,
      60000,
      () => 'analytics did not fold the finished run',
    );
    d = await dashboard();
    expect(d.runCounts).toEqual(expect.objectContaining({ total: 1, failed: 1, running: 1 }));
    expect(d.totals.executions).toBe(3);
  });
});

describe('dashboard: the runs service out of reach', () => {
  let sys: PrivateSystem;
  beforeAll(async () => {
    sys = await startPrivateSystem({ name: 'dashboard-no-runs', envFor: { analytics: { RUNS_URL: 'http://127.0.0.1:9' } } });
  }, 120000);
  afterAll(() => sys?.stop());

  it('answers 503 SERVICE_UNAVAILABLE without naming an address; the other analytics reads still answer', async () => {
    const t = await sys.admin.tenant('member');
    const res = await sys.api(t.token).get(`/${t.projectId}/dashboard`);
    expect(res.status).toBe(503);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|:9\b/);
    expect((await sys.api(t.token).get(`/${t.projectId}/analytics/summary`)).status).toBe(200);
  });
});
