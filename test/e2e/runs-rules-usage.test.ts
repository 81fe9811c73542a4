/**
 * Action rules through the admin CLI (quarantine, tag, skip) applied at ingestion and served by the reads;
 * usage and the plan quota on both upload paths; the compatibility upload, and the real `tdpw` CLI pointed at
 * the gateway.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { adminCli, testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';
import { realPlaywrightReport, type RealReport } from './support/playwright';

jest.setTimeout(180000);
const run = promisify(execFile);
const admin = testAdmin();
const REPO = path.resolve(__dirname, '..', '..');
const cli = (...args: string[]) => adminCli(testSystem(), args);

const upload = (key: string, body: unknown) =>
  testApi().request('POST', '/api/reports/playwright', {
    rawBody: JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    authorization: null,
  });

describe('runs: action rules, usage and quota, compatibility upload, tdpw', () => {
  let t: Tenant;
  let report: RealReport;
  let key: { token: string; uploadKey: string };

  beforeAll(async () => {
    [t, report] = await Promise.all([admin.tenant('owner'), realPlaywrightReport()]);
    key = await admin.apiKey(t.projectId);
  });

  it('creates rules with the CLI, applies them at ingestion, lists them and summarizes them', async () => {
    const q = await cli(
      'rule:create',
      '--project',
      t.projectId,
      '--name',
      'Known failures',
      '--operations',
      'quarantine,tag',
      '--title-pattern',
      '^(fails on the total|times out)$',
      '--tag',
      'quarantined',
    );
    expect(q.code).toBe(0);
    expect(q.json).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/) });
    const skip = await cli(
      'rule:create',
      '--project',
      t.projectId,
      '--name',
      'Skip coupons',
      '--operations',
      'skip',
      '--title-pattern',
      'coupon',
    );
    const old = await cli(
      'rule:create',
      '--project',
      t.projectId,
      '--name',
      'Old',
      '--operations',
      'skip',
      '--file',
      'x.spec.ts',
      '--expires-at',
      '2020-01-01T00:00:00Z',
    );
    const off = await cli(
      'rule:create',
      '--project',
      t.projectId,
      '--name',
      'Off',
      '--operations',
      'tag',
      '--file',
      'checkout.pw.ts',
      '--tag',
      'off',
    );
    expect((await cli('rule:disable', '--id', off.json.id)).json).toEqual({ ok: true });
    expect((await cli('rule:create', '--project', t.projectId, '--name', 'x', '--operations', 'explode', '--file', 'a')).code).not.toBe(0);
    expect((await cli('rule:create', '--project', t.projectId, '--name', 'x', '--operations', 'skip')).json.error.code).toBe(
      'VALIDATION_ERROR',
    );

    const res = await testApi(key.token).request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
      rawBody: JSON.stringify(report.json),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
    // Both failures are quarantined: still counted, but they do not fail the run.
    expect(res.body.data.status).toBe('passed');
    expect(res.body.data.testStats.failed).toBe(2);
    const detail = (await testApi(t.token).get(`/${t.projectId}/test-runs/${res.body.data.runId}`)).body.data;
    expect(detail.liveStats.quarantined).toBe(2);
    const cases = (await testApi(t.token).get(`/${t.projectId}/test-runs/${res.body.data.runId}/test-cases?limit=25`)).body.data;
    const failing = cases.filter((c: any) => c.quarantined);
    expect(failing.map((c: any) => c.title).sort()).toEqual(['fails on the total', 'times out']);
    expect(failing[0].tags).toContain('quarantined');
    expect(cases.find((c: any) => c.title === 'is skipped').tags).not.toContain('off');

    const all = await testApi(t.token).get(`/${t.projectId}/workflow-rules?limit=25`);
    expect(all.status).toBe(200);
    expect(all.body.pagination.total).toBe(4);
    const byName = Object.fromEntries(all.body.data.rules.map((r: any) => [r.name, r]));
    expect(byName['Known failures']).toEqual({
      id: q.json.id,
      name: 'Known failures',
      description: '',
      operations: ['quarantine', 'tag'],
      match: { titlePattern: '^(fails on the total|times out)$' },
      tag: 'quarantined',
      enabled: true,
      expiresAt: null,
      createdBy: 'admin-cli',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      status: 'active',
    });
    expect(byName.Old.status).toBe('expired');
    expect(byName.Off.status).toBe('disabled');
    const active = await testApi(t.token).get(`/${t.projectId}/workflow-rules?status=active`);
    expect(active.body.data.rules.map((r: any) => r.id).sort()).toEqual([q.json.id, skip.json.id].sort());
    expect((await testApi(t.token).get(`/${t.projectId}/workflow-rules?status=expired`)).body.data.rules.map((r: any) => r.id)).toEqual([
      old.json.id,
    ]);
    const disabled = await testApi(t.token).get(`/${t.projectId}/workflow-rules?status=disabled`);
    expect(disabled.status).toBe(200);
    expect(disabled.body.data.rules.map((r: any) => r.name)).toEqual(['Off']);
    expect(disabled.body.pagination).toMatchObject({ total: 1, page: 1 });

    const summary = await testApi(t.token).get(`/${t.projectId}/action-rules/summary?windowDays=30`);
    expect(summary.body).toEqual({
      success: true,
      data: { rules: { skip: 1, quarantine: 1, tag: 1 }, quarantinedTests: 2, windowDays: 30 },
    });
    expect((await testApi(t.token).get(`/${t.projectId}/action-rules/summary`)).body.data.windowDays).toBe(7);

    const skipList = await testApi(key.token).get(`/api/v1/ingest/${t.projectId}/skip-list`);
    expect(skipList.status).toBe(200);
    expect(skipList.body.data.tests).toEqual([
      {
        testId: expect.any(String),
        file: 'checkout.pw.ts',
        titlePath: ['coupon', 'applies a discount'],
        title: 'coupon › applies a discount',
        projectName: 'node',
      },
    ]);
  });

  it('uploads through the compatibility endpoint with X-API-Key', async () => {
    const res = await upload(key.uploadKey, {
      ...report.json,
      metadata: {
        git: { branch: 'feature/x', commit: { hash: 'f00', message: 'm', author: 'a', email: 'a@x', timestamp: 'now' }, environment: 'qa' },
        ci: { provider: 'local' },
      },
    });
    expect(res.status).toBe(200);
    // counted in the token's ingest bucket like the ingestion API
    expect(res.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(res.body).toEqual({
      success: true,
      data: {
        testRunId: expect.stringMatching(/^[0-9a-f]{24}$/),
        projectId: t.projectId,
        viewUrl: expect.stringContaining('/runs/'),
        status: 'passed',
      },
    });
    const listed = (await testApi(t.token).get(`/${t.projectId}/test-runs`)).body.data.find((r: any) => r.id === res.body.data.testRunId);
    expect(listed.metadata.git).toEqual({ branch: 'feature/x', environment: 'qa', commit: { hash: 'f00', message: 'm', author: 'a' } });
    const unknown = await upload('trx_production_' + '0'.repeat(64), report.json);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('ratelimit-limit')).toBeNull();
    expect((await upload(key.token, report.json)).status).toBe(401);
  });

  it('counts usage and enforces the plan: 429 on the ingest API, 200 success:false on the compatibility upload', async () => {
    const u = await testApi(t.token).get(`/${t.projectId}/usage`);
    expect(u.status).toBe(200);
    expect(u.body.data).toEqual({
      planName: 'standard',
      periodStart: expect.stringMatching(/-01T00:00:00.000Z$/),
      periodEnd: expect.stringMatching(/-01T00:00:00.000Z$/),
      limits: { testResultsPerMonth: 1000000 },
      used: { testResults: 12, runs: 2 },
      remaining: 1000000 - 12,
      artifacts: { bytes: 0, count: 0, retentionDays: 30 },
    });
    expect((await cli('plan:set', '--org', t.orgId, '--plan', 'tiny', '--test-results-per-month', '15')).json).toEqual({ ok: true });
    const over = await testApi(key.token).request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
      rawBody: JSON.stringify(report.json),
      headers: { 'content-type': 'application/json' },
    });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('QUOTA_LIMIT_EXCEEDED');
    const compat = await upload(key.uploadKey, report.json);
    expect(compat.status).toBe(200);
    expect(compat.body).toEqual({
      success: false,
      message: expect.any(String),
      data: expect.objectContaining({ code: 'QUOTA_LIMIT_EXCEEDED', planName: 'tiny', limit: 15, used: 12, remaining: 3 }),
    });
    // Nothing of the refused reports was stored.
    expect((await testApi(t.token).get(`/${t.projectId}/usage`)).body.data.used).toEqual({ testResults: 12, runs: 2 });
    expect((await testApi(t.token).get(`/${t.projectId}/test-runs`)).body.pagination.total).toBe(2);
    await cli('plan:set', '--org', t.orgId, '--plan', 'big', '--test-results-per-month', '1000000');
  });

  it('accepts an upload from the real tdpw CLI and lists the run', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-tdpw-'));
    fs.copyFileSync(report.jsonPath, path.join(dir, 'report.json'));
    const before = (await testApi(t.token).get(`/${t.projectId}/test-runs`)).body.pagination.total;
    const env = { PATH: process.env.PATH, HOME: dir, TESTDINO_API_URL: testSystem().gatewayUrl, CI: '', NO_COLOR: '1' };
    const bin = path.join(REPO, 'node_modules', 'tdpw', 'bin', 'tdpw.js');
    const { stdout } = await run(process.execPath, [bin, 'upload', dir, `--token=${key.uploadKey}`, '--environment=staging', '--json'], {
      env,
      cwd: dir,
    });
    const out = JSON.parse(stdout.slice(stdout.indexOf('{')));
    const list = (await testApi(t.token).get(`/${t.projectId}/test-runs`)).body;
    expect(list.pagination.total).toBe(before + 1);
    const latest = list.data.find((r: any) => JSON.stringify(out).includes(r.id));
    expect(latest).toBeDefined();
    expect(latest.testStats.total).toBe(6);
    expect(latest.metadata.git.environment).toBe('staging');
  });
});
