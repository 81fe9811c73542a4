/**
 * @assay/playwright end to end (issue 18): a real @playwright/test project (fixtures/playwright-reporter, Debian's
 * Chromium, a screenshot per attempt) run in two shards of one CI build against a private system whose webhooks
 * reach a local receiver. One flaky test, one test an Assay skip rule names (it leaves a mark if it runs), one
 * failing test an Assay quarantine rule names. And the same project with Assay unreachable. Before that, the
 * ingestion API's build ids and shards directly.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminCli, freePort, REPO_ROOT, WebhookReceiver, type Api, type Tenant } from '@assay/testkit';
import { privateSystem, type PrivateSystem } from './webhook-support';

jest.setTimeout(300_000);
const FIXTURE = path.join(__dirname, 'fixtures', 'playwright-reporter');
const PLAYWRIGHT_CLI = require.resolve('@playwright/test/cli');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface PwRun {
  code: number | null;
  stdout: string;
  stderr: string;
  endedAt: number;
}

/** Runs the Playwright CLI on the fixture (asynchronously: the jest test goes on meanwhile). */
function playwright(args: string[], env: NodeJS.ProcessEnv): Promise<PwRun> {
  // Playwright refuses to run inside a jest worker: hide the worker's marker from it.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('JEST') && !k.startsWith('ASSAY_')));
  const child = spawn(process.execPath, [PLAYWRIGHT_CLI, 'test', '--config', path.join(FIXTURE, 'playwright.config.ts'), ...args], {
    cwd: FIXTURE,
    env: {
      ...base,
      JEST_WORKER_ID: '',
      FORCE_COLOR: '0',
      CI: '1',
      PLAYWRIGHT_BROWSERS_PATH: path.join(REPO_ROOT, '.cache', 'ms-playwright'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, endedAt: Date.now() }));
  });
}

describe('@assay/playwright', () => {
  let sys: PrivateSystem;
  let receiver: WebhookReceiver;
  let t: Tenant;
  let api: Api;
  let key: string;
  let dir: string;

  const cli = async (...args: string[]) => {
    const r = await adminCli(sys.system, args);
    if (r.code !== 0) throw new Error(`admin CLI ${args[0]} exited with ${r.code}: ${r.stderr}`);
    return r.json;
  };
  const ingest = (p: string, body: unknown) =>
    api.request('POST', `/api/v1/ingest/${t.projectId}${p}`, {
      rawBody: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });

  beforeAll(async () => {
    [sys, receiver] = await Promise.all([privateSystem(), new WebhookReceiver().start()]);
    t = await sys.admin.tenant('owner');
    api = sys.api(t.token);
    key = (await sys.admin.apiKey(t.projectId)).token;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-reporter-'));
  });
  afterAll(async () => {
    await receiver?.close();
    await sys?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('the ingestion API: one run per CI build, finished by its last shard', () => {
    let other: Tenant;
    beforeAll(async () => {
      other = await sys.admin.tenant('owner');
    });
    const start = (buildId: string | undefined, shard?: { current: number; total: number }, projectId = t.projectId, token = t.token) =>
      sys.api(token).request('POST', `/api/v1/ingest/${projectId}/runs`, {
        rawBody: JSON.stringify({ metadata: { git: { branch: 'main' } }, ...(buildId ? { buildId } : {}), ...(shard ? { shard } : {}) }),
        headers: { 'content-type': 'application/json' },
      });

    it('answers the same run to every shard of a build (201, then 200), and another run in another project', async () => {
      const [a, b] = await Promise.all([start('api-build-1', { current: 1, total: 2 }), start('api-build-1', { current: 2, total: 2 })]);
      expect([a.status, b.status].sort()).toEqual([200, 201]);
      expect(a.body.data.runId).toBe(b.body.data.runId);
      expect(a.body.data).toMatchObject({ status: 'running', buildId: 'api-build-1', shards: { total: 2, finished: [] } });
      const elsewhere = await start('api-build-1', { current: 1, total: 2 }, other.projectId, other.token);
      expect(elsewhere.status).toBe(201);
      expect(elsewhere.body.data.runId).not.toBe(a.body.data.runId);
      const runs = (await api.get(`/${t.projectId}/test-runs?limit=100`)).body.data.filter((r: any) => r.id === a.body.data.runId);
      expect(runs).toHaveLength(1);

      const runId = a.body.data.runId;
      const item = (shard: number, title: string, status: string) => ({
        file: 'a.spec.ts',
        titlePath: [title],
        projectName: 'chromium',
        status,
        duration: 5,
        retry: 0,
        shard,
      });
      expect((await ingest(`/runs/${runId}/results`, { results: [item(1, 'one', 'passed')] })).status).toBe(200);
      expect((await ingest(`/runs/${runId}/results`, { results: [item(2, 'two', 'failed')] })).status).toBe(200);
      const bad = await ingest(`/runs/${runId}/results`, { results: [item(0, 'three', 'passed')] });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details[0].path).toBe('body.results[0].shard');

      // Shard 1 done: still running. Again: harmless. Shard 2 done: finished, status computed from both shards.
      const first = await ingest(`/runs/${runId}/finish`, { shard: { current: 1, total: 2 } });
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ status: 'running', shards: { total: 2, finished: [1] } });
      expect((await ingest(`/runs/${runId}/finish`, { shard: { current: 1, total: 2 } })).body.data.status).toBe('running');
      expect((await ingest(`/runs/${runId}/finish`, { shard: { current: 2, total: 3 } })).status).toBe(409);
      const last = await ingest(`/runs/${runId}/finish`, { shard: { current: 2, total: 2 } });
      expect(last.body.data).toMatchObject({
        status: 'failed',
        shards: { total: 2, finished: [1, 2] },
        testStats: expect.objectContaining({ total: 2, passed: 1, failed: 1 }),
      });
      // The build's run has finished: a late shard cannot reopen it.
      const late = await start('api-build-1', { current: 1, total: 2 });
      expect(late.status).toBe(409);
      expect(late.body.error.code).toBe('CONFLICT');
    });

    it('refuses a bad build id or shard with 400 naming the field, and another shard total with 409', async () => {
      expect((await start('has space')).body.error.details[0].path).toBe('body.buildId');
      expect((await start('b', { current: 3, total: 2 })).body.error.details[0].path).toBe('body.shard.current');
      expect((await start('b', { current: 1, total: 0 })).body.error.details[0].path).toBe('body.shard.total');
      expect((await start('api-build-2', { current: 1, total: 2 })).status).toBe(201);
      expect((await start('api-build-2', { current: 1, total: 4 })).status).toBe(409);
      // Without a build id every start is a run of its own.
      const [x, y] = [await start(undefined), await start(undefined)];
      expect([x.status, y.status]).toEqual([201, 201]);
      expect(x.body.data.runId).not.toBe(y.body.data.runId);
      expect(x.body.data.buildId).toBeUndefined();
    });
  });

  describe('a real Playwright project in two shards', () => {
    const marks = () => path.join(dir, 'marks');
    const started = () => path.join(dir, 'run-started');
    let shards: PwRun[];
    let runId: string;
    const isEvent = (name: string) => (r: { headers: Record<string, unknown> }) => r.headers['x-service-event'] === name;

    beforeAll(async () => {
      fs.mkdirSync(marks());
      // A project of its own (the API tests above made runs in t's project), reported into with its API key.
      t = await sys.admin.tenant('owner');
      api = sys.api(t.token);
      key = (await sys.admin.apiKey(t.projectId)).token;
      await cli(
        'rule:create',
        '--project',
        t.projectId,
        '--name',
        'Skip the broken search',
        '--operations',
        'skip',
        '--title-pattern',
        'skipped by an Assay rule',
      );
      await cli(
        'rule:create',
        '--project',
        t.projectId,
        '--name',
        'Known failure',
        '--operations',
        'quarantine',
        '--title-pattern',
        '^search › is quarantined',
      );
      const hook = await api.post(`/${t.projectId}/webhooks`, { url: receiver.url('/reporter'), events: ['RUN_STARTED', 'RUN_FINISHED'] });
      expect(hook.status).toBe(201);

      // The fixture's "RUN_STARTED" test waits for this file: written once the receiver has the event.
      const watcher = receiver
        .waitFor(() => receiver.at('/reporter').some(isEvent('RUN_STARTED')), 120_000, 'RUN_STARTED')
        .then(() => fs.writeFileSync(started(), ''))
        .catch(() => undefined);
      const buildEnv = {
        ASSAY_URL: sys.system.gatewayUrl,
        ASSAY_TOKEN: key,
        ASSAY_BUILD_ID: `e2e-build-${Date.now()}`,
        ASSAY_E2E_MARKS: marks(),
        ASSAY_E2E_STARTED_FILE: started(),
      };
      shards = await Promise.all(
        [1, 2].map((n) => playwright([`--shard=${n}/2`], { ...buildEnv, ASSAY_PW_OUTPUT_DIR: path.join(dir, `results-${n}`) })),
      );
      await watcher;
      const runs = (await api.get(`/${t.projectId}/test-runs?limit=100`)).body.data;
      runId = runs[0]?.id;
    });

    const output = () => shards.map((s) => s.stdout + s.stderr).join('\n');

    it('exits 0 in both shards: the only failure is quarantined, and the console names it', () => {
      for (const s of shards) expect({ code: s.code, out: s.stdout + s.stderr }).toEqual({ code: 0, out: expect.any(String) });
      expect(output()).toContain('every failing test is quarantined in Assay, so the run passes:');
      expect(output()).toMatch(/\[chromium\] search\.pw\.ts › search › is quarantined: always fails/);
      // Playwright itself saw the failure and the flaky test.
      expect(output()).toMatch(/1 failed/);
      expect(output()).toMatch(/1 flaky/);
    });

    it('skipped the test the skip rule names before it ran', () => {
      expect(fs.existsSync(path.join(marks(), 'skipped-test-ran'))).toBe(false);
      expect(output()).toMatch(/1 skipped/);
    });

    it('made one run of the two shards, with the stats of both', async () => {
      const runs = (await api.get(`/${t.projectId}/test-runs?limit=100`)).body.data;
      expect(runs).toHaveLength(1);
      const detail = (await api.get(`/${t.projectId}/test-runs/${runId}`)).body.data;
      expect(detail.status).toBe('passed');
      expect(detail.testStats).toEqual({
        total: 6,
        passed: 3,
        failed: 1,
        skipped: 1,
        flaky: 1,
        timedOut: 0,
        totalAttempts: 8,
        retriedTests: 2,
      });
      const cases = (await api.get(`/${t.projectId}/test-runs/${runId}/test-cases?limit=100`)).body.data;
      const byTitle = Object.fromEntries(cases.map((c: any) => [c.fullTitle, [c.status, c.attempts, c.quarantined]]));
      expect(byTitle).toEqual({
        'checkout › shows the total': ['passed', 1, false],
        'checkout › is flaky: fails on the first attempt only': ['flaky', 2, false],
        'checkout › runs while RUN_STARTED is already delivered': ['passed', 1, false],
        'search › finds a result': ['passed', 1, false],
        'search › is skipped by an Assay rule': ['skipped', 1, false],
        'search › is quarantined: always fails': ['failed', 2, true],
      });
    });

    it('delivered RUN_STARTED while the tests ran (before the last one finished), and RUN_FINISHED once at the end', async () => {
      await receiver.waitFor(() => receiver.at('/reporter').some(isEvent('RUN_FINISHED')), 30_000, 'RUN_FINISHED');
      const startedEvents = receiver.at('/reporter').filter(isEvent('RUN_STARTED'));
      const finished = receiver.at('/reporter').filter(isEvent('RUN_FINISHED'));
      expect(startedEvents).toHaveLength(1);
      expect(finished).toHaveLength(1);
      expect(JSON.parse(startedEvents[0]!.body.toString()).data.run.id).toBe(runId);
      const fin = JSON.parse(finished[0]!.body.toString()).data.run;
      expect(fin).toMatchObject({ id: runId, status: 'passed' });
      expect(startedEvents[0]!.receivedAt).toBeLessThan(Math.min(...shards.map((s) => s.endedAt)));
      expect(startedEvents[0]!.receivedAt).toBeLessThan(finished[0]!.receivedAt);
    });

    it('uploaded every attachment with a file (screenshots, error contexts): listed with include=artifacts, downloaded byte-identical', async () => {
      const local = [1, 2].flatMap((n) =>
        (fs.readdirSync(path.join(dir, `results-${n}`), { recursive: true }) as string[])
          .filter((f) => f.endsWith('.png') || f.endsWith('.md'))
          .map((f) => path.join(dir, `results-${n}`, f)),
      );
      expect(local.filter((f) => f.endsWith('.png'))).toHaveLength(6); // shows, finds, flaky ×2, quarantined ×2
      const detail = (await api.get(`/${t.projectId}/test-runs/${runId}?include=artifacts`)).body.data;
      const stored = detail.artifacts.items.filter((i: any) => i.artifact);
      expect(stored.map((i: any) => i.path).sort()).toEqual([...local].sort());
      expect(detail.artifacts.storedBytes).toBe(local.reduce((n, f) => n + fs.statSync(f).size, 0));
      for (const item of stored) {
        const res = await fetch(item.artifact.url);
        expect(res.status).toBe(200);
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(bytes.equals(fs.readFileSync(item.path))).toBe(true);
        expect(item.artifact.sha256).toBe(sha(bytes));
      }
    });

    it("printed the run's URL in both shards", () => {
      const url = `${sys.system.gatewayUrl}/projects/${t.projectId}/runs/${runId}`;
      for (const s of shards) expect(s.stdout).toContain(url);
      expect(output()).toMatch(new RegExp(`\\[assay\\] run #\\d+ passed \\(shard \\d/2, the last\\): ${url.replace(/[.?]/g, '\\$&')}`));
    });
  });

  describe('with Assay unreachable', () => {
    let url: string;
    beforeAll(async () => {
      url = `http://127.0.0.1:${await freePort()}`; // nothing listens there
    });
    const env = (name: string) => {
      fs.mkdirSync(path.join(dir, `${name}-marks`));
      return {
        ASSAY_URL: url,
        ASSAY_TOKEN: 'svc_pat_unreachable',
        ASSAY_PROJECT_ID: 'p1',
        ASSAY_PW_OUTPUT_DIR: path.join(dir, name),
        ASSAY_E2E_MARKS: path.join(dir, `${name}-marks`),
      };
    };

    it('does not change the exit code: 1 when a test fails (nothing is quarantined then), with a warning', async () => {
      const r = await playwright([], env('down-all'));
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/\[assay\] could not start the run: .*; results of this run are not reported to Assay \(the tests go on\)/);
      expect(r.stderr).toMatch(/\[assay\] could not fetch the skip list, running every test/);
      expect(r.stdout).toMatch(/1 failed/);
      expect(r.stdout).toMatch(/1 flaky/);
      // Without the skip list the rule-named test ran, as without Assay.
      expect(fs.existsSync(path.join(dir, 'down-all-marks', 'skipped-test-ran'))).toBe(true);
    });

    it('does not change the exit code: 0 when every test passes', async () => {
      const r = await playwright(['--grep', 'shows the total|finds a result'], env('down-pass'));
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('[assay] could not start the run');
      expect(r.stdout).toMatch(/2 passed/);
    });
  });
});
