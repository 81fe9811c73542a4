/**
 * The demo history `make up` seeds (@assay/testkit seedDemoRuns), into a fresh tenant through the public
 * ingestion API: twelve runs over ten days on two branches and two environments, the newest still running, with
 * failures, flaky retries and skips that the run pages and the dashboard show.
 */
import { seedDemoRuns, testAdmin, testApi, testSystem } from '@assay/testkit';

jest.setTimeout(120_000);

it('seeds twelve runs that the list shows: branches, environments, statuses, the newest running', async () => {
  const t = await testAdmin().tenant('owner');
  await seedDemoRuns(testSystem().gatewayUrl, t.token, t.projectId);
  const api = testApi(t.token);
  const res = await api.get(`/${t.projectId}/test-runs?limit=25`);
  expect(res.status).toBe(200);
  const runs = res.body.data as {
    id: string;
    status: string;
    startTime: string;
    testStats: { total: number; failed: number; flaky: number; skipped: number };
    metadata: { git: { branch: string; environment: string } };
  }[];
  expect(runs).toHaveLength(12);
  expect(runs[0]!.status).toBe('running');
  expect(runs.filter((r) => r.status === 'running')).toHaveLength(1);
  expect(new Set(runs.map((r) => r.metadata.git.branch))).toEqual(new Set(['main', 'feature/checkout-redesign']));
  expect(new Set(runs.map((r) => r.metadata.git.environment))).toEqual(new Set(['staging', 'production']));
  expect(runs.some((r) => r.status === 'failed')).toBe(true);
  expect(runs.some((r) => r.status === 'passed')).toBe(true);
  expect(runs.slice(1).every((r) => r.testStats.skipped >= 1)).toBe(true);
  expect(runs.reduce((n, r) => n + r.testStats.flaky, 0)).toBeGreaterThan(0);
  const days = (Date.parse(runs[0]!.startTime) - Date.parse(runs[11]!.startTime)) / 86_400_000;
  expect(days).toBeGreaterThan(8);
  expect(days).toBeLessThanOrEqual(10);
  // A failed result carries Playwright's error with its stack.
  const failedRun = runs.find((r) => r.status === 'failed')!;
  const cases = (await api.get(`/${t.projectId}/test-runs/${failedRun.id}/test-cases?status=failed`)).body.data as { id: string }[];
  const detail = (await api.get(`/${t.projectId}/test-cases/${cases[0]!.id}`)).body.data;
  expect(detail.overview.error.message).toMatch(/^Error: |Test timeout/);
  expect(detail.overview.error.stack).toContain('.spec.ts:');
});
