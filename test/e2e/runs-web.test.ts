/**
 * What the web app's run pages read, over real HTTP against the whole system: the run list's exact filters
 * (branch, environment, status) on GET /test-runs beside the spec's parameters, and the app API's compact rows of
 * a whole run (GET /api/v1/app/projects/{p}/test-runs/{r}/results) — with a session cookie or a token, the same
 * rows and spec files as the public reads, and at 10,000 tests one answer whose size and time are printed.
 */
import { largePlaywrightReport, testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';

jest.setTimeout(180_000);
const admin = testAdmin();

const ingest = (token: string, projectId: string, report: unknown) =>
  testApi(token).request('POST', `/api/v1/ingest/${projectId}/playwright`, {
    rawBody: JSON.stringify(report),
    headers: { 'content-type': 'application/json' },
  });

const rowsUrl = (projectId: string, runId: string) => `/api/v1/app/projects/${projectId}/test-runs/${runId}/results`;

let t: Tenant;
beforeAll(async () => {
  t = await admin.tenant('member');
});

describe('GET /test-runs: the web app filters', () => {
  it('filters by exact branch, environment and status, with the spec parameters and paging', async () => {
    const runs: Record<string, string> = {};
    for (const [name, branch, environment, failing] of [
      ['main-staging-pass', 'main', 'staging', false],
      ['main-prod-fail', 'main', 'production', true],
      ['feature-staging-pass', 'feature/x', 'staging', false],
    ] as const) {
      const report = largePlaywrightReport(failing ? 10 : 5, { branch, environment });
      const res = await ingest(t.token, t.projectId, report);
      expect(res.status).toBe(201);
      runs[name] = res.body.data.runId;
    }
    const api = testApi(t.token);
    const ids = async (query: string) => {
      const res = await api.get(`/${t.projectId}/test-runs?${query}`);
      expect(res.status).toBe(200);
      return (res.body.data as { id: string }[]).map((r) => r.id);
    };
    expect(await ids('branch=main')).toEqual([runs['main-prod-fail'], runs['main-staging-pass']]);
    expect(await ids(`branch=${encodeURIComponent('feature/x')}`)).toEqual([runs['feature-staging-pass']]);
    expect(await ids('environment=staging')).toEqual([runs['feature-staging-pass'], runs['main-staging-pass']]);
    expect(await ids('status=failed')).toEqual([runs['main-prod-fail']]);
    expect(await ids('status=running')).toEqual([]);
    expect(await ids('branch=main&environment=staging&status=passed')).toEqual([runs['main-staging-pass']]);
    expect(await ids('branch=nope')).toEqual([]);
    // With the spec's own parameters: the period and the page.
    expect(await ids('branch=main&start_date=2000-01-01T00:00:00Z&end_date=2000-01-02T00:00:00Z')).toEqual([]);
    const page = await api.get(`/${t.projectId}/test-runs?environment=staging&limit=10&page=2`);
    expect([page.body.data.length, page.body.pagination.total]).toEqual([0, 2]);
    const bad = await api.get(`/${t.projectId}/test-runs?status=green`);
    expect([bad.status, bad.body.error.code, bad.body.error.details[0].path]).toEqual([400, 'VALIDATION_ERROR', 'query.status']);
  });
});

describe('GET /api/v1/app/projects/{projectId}/test-runs/{runId}/results', () => {
  it("answers a run's rows and spec files as the public reads have them; with a session or a token; 404 elsewhere", async () => {
    const res = await ingest(t.token, t.projectId, largePlaywrightReport(150));
    const runId = res.body.data.runId as string;
    const api = testApi(t.token);
    const rows = await api.get(rowsUrl(t.projectId, runId));
    expect(rows.status).toBe(200);
    const data = rows.body.data;
    expect([data.total, data.rows.length]).toEqual([150, 150]);
    const detail = (await api.get(`/${t.projectId}/test-runs/${runId}?include=specs,errors`)).body.data;
    expect(data.specs).toEqual(detail.specs.map(({ url: _url, tests: _tests, ...spec }: Record<string, unknown>) => spec));
    const listed = (await api.get(`/${t.projectId}/test-runs/${runId}/test-cases?limit=100`)).body.data;
    expect(data.rows.slice(0, 100).map((r: { id: string; title: string; status: string }) => [r.id, r.title, r.status])).toEqual(
      listed.map((c: { id: string; fullTitle: string; status: string }) => [c.id, c.fullTitle, c.status]),
    );
    const failed = data.rows.filter((r: { status: string }) => r.status === 'failed');
    expect(failed).toHaveLength(3);
    // The failures share their first line: one error group, the run detail's.
    expect(new Set(failed.map((r: { errorGroupId: string }) => r.errorGroupId))).toEqual(new Set([detail.errorGroups[0].id]));

    // The web app's session cookie opens it too (a read: no CSRF header needed).
    const link = await admin.rpc.createSignInLink({ userId: t.userId });
    const signIn = await fetch(`${testSystem().gatewayUrl}/api/v1/app/sign-in-links/use`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-assay-csrf': '1' },
      body: JSON.stringify({ token: new URL(link.url).hash.replace(/^#token=/, '') }),
    });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const withSession = await fetch(`${testSystem().gatewayUrl}${rowsUrl(t.projectId, runId)}`, { headers: { cookie } });
    expect(withSession.status).toBe(200);
    expect(((await withSession.json()) as { data: { total: number } }).data.total).toBe(150);

    expect((await api.get(rowsUrl(t.projectId, 'f'.repeat(24)))).status).toBe(404);
    const other = await admin.tenant('owner');
    expect((await testApi(other.token).get(rowsUrl(t.projectId, runId))).status).toBe(404);
    expect((await testApi().get(rowsUrl(t.projectId, runId), { authorization: null })).status).toBe(401);
  });

  it('answers a 10,000-test run in one bounded answer (size and time printed)', async () => {
    const res = await ingest(t.token, t.projectId, largePlaywrightReport(10_000));
    expect(res.status).toBe(201);
    const runId = res.body.data.runId as string;
    const url = `${testSystem().gatewayUrl}${rowsUrl(t.projectId, runId)}`;
    const headers = { authorization: `Bearer ${t.token}` };
    await (await fetch(url, { headers })).arrayBuffer(); // warm
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const body = await (await fetch(url, { headers })).text();
      times.push(performance.now() - t0);
      bytes = Buffer.byteLength(body);
      expect(JSON.parse(body).data.rows).toHaveLength(10_000);
    }
    times.sort((a, b) => a - b);
    process.stderr.write(
      `[runs-web] app rows of a 10,000-test run: ${(bytes / 1024).toFixed(0)} KiB, median ${times[2]!.toFixed(0)} ms (min ${times[0]!.toFixed(0)}, max ${times[4]!.toFixed(0)})\n`,
    );
    expect(bytes).toBeLessThan(2 * 1024 * 1024);
    expect(times[2]).toBeLessThan(1000);
  });
});
