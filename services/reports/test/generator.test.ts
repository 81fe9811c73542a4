/**
 * The reports service's generator and sweeper, on private copies of the service (own databases) that call
 * the shared test system's real analytics, runs and identity services:
 *   - a generation that keeps failing (analytics unreachable) ends `failed` with a reason after
 *     REPORT_MAX_ATTEMPTS attempts, never pending forever; its download is a 409;
 *   - a report left pending by a killed worker (lease run out) is taken up again and becomes ready;
 *   - a report whose last attempt ran out of time is failed ("did not finish");
 *   - a worker that lost its lease cannot overwrite the report (the attempt fences the writes);
 *   - the retention sweeper deletes reports (and their PDFs) older than REPORT_RETENTION_DAYS, not younger.
 */
import type { Client } from '@connectrpc/connect';
import { ReportsService } from '@assay/proto/assay/reports/v1/reports_pb';
import { reportStatus } from '@assay/contracts/reports/reports';
import { createPool, newId, withTransaction, type Pool } from '@assay/db';
import {
  asPrincipal,
  createRpcClient,
  encodePrincipal,
  formatCallers,
  PRINCIPAL_HEADER,
  startService,
  type Principal,
  type RunningService,
} from '@assay/service-kit';
import { createDatabase, freePorts, testAdmin, testSystem, waitUntil, type Tenant } from '@assay/testkit';
import { loadReportsConfig, type ReportsConfig } from '../src/config';
import { reportsService } from '../src/service';
import { periodEnding } from '../src/domain/period';
import { completeReport, findReport, insertReport } from '../src/store/reports';
import { sweepOnce } from '../src/workers/sweeper';

jest.setTimeout(120000);
const DAY_MS = 86_400_000;

interface Instance {
  svc: RunningService<ReportsConfig>;
  client: Client<typeof ReportsService>;
  pool: Pool;
  internalToken: string;
}

async function startInstance(name: string, env: Record<string, string>): Promise<Instance> {
  const s = testSystem();
  const databaseUrl = await createDatabase(s.infra.DATABASE_URL, `assay_reports_${name}`);
  const [rpcPort, httpPort] = await freePorts(2);
  const analytics = s.ports.services.analytics;
  const config = loadReportsConfig({
    DATABASE_URL: databaseUrl,
    // It calls the shared services with the admin credential (every test service accepts it), and answers it.
    INTERNAL_AUTH_TOKEN: s.internalToken,
    INTERNAL_CALLERS: formatCallers({ admin: s.internalToken }),
    RPC_PORT: String(rpcPort),
    HTTP_PORT: String(httpPort),
    ANALYTICS_URL: analytics ? `http://127.0.0.1:${analytics.rpcPort}` : 'http://127.0.0.1:1',
    RUNS_URL: `http://127.0.0.1:${s.ports.services.runs!.rpcPort}`,
    IDENTITY_URL: s.adminUrl,
    // The failures these tests provoke would fill the test output with warnings.
    LOG_LEVEL: 'error',
    REPORT_POLL_INTERVAL_MS: '50',
    REPORT_RETRY_DELAY_SECONDS: '0.05',
    REPORT_MAX_ATTEMPTS: '2',
    SHUTDOWN_GRACE_MS: '2000',
    ...env,
  });
  const svc = await startService(reportsService(config));
  return {
    svc,
    client: createRpcClient(ReportsService, { baseUrl: `http://127.0.0.1:${svc.rpcPort}`, internalToken: s.internalToken }),
    pool: createPool({ connectionString: databaseUrl, schema: 'reports', applicationName: 'reports-test', max: 2 }),
    internalToken: s.internalToken,
  };
}

const principalOf = (t: Tenant): Principal => ({
  tokenId: t.tokenId,
  tokenType: 'pat',
  userId: t.userId,
  userName: t.name,
  userEmail: t.email,
  orgId: t.orgId,
  role: 'owner',
});

/** A pending report written straight to the table, as a request would leave it, then changed by `patch` (SQL SET). */
async function pendingReport(i: Instance, t: Tenant, patch: string): Promise<string> {
  const id = newId();
  const now = new Date();
  // One transaction: a worker must not take the report up between its insert and the patch (it did once in CI, and
  // the report went ready after one attempt).
  await withTransaction(i.pool, async (c) => {
    await insertReport(c, {
      id,
      projectId: t.projectId,
      orgId: t.orgId,
      projectName: 'Test project',
      requestedBy: principalOf(t),
      ...periodEnding(now, 7),
      branch: '',
      environment: '',
      tags: [],
      fileName: 'assay-test-project.pdf',
      createdAt: now,
      expiresAt: new Date(now.getTime() + 30 * DAY_MS),
    });
    await c.query(`UPDATE reports SET ${patch} WHERE id = $1`, [id]);
  });
  return id;
}

async function statusOf(i: Instance, t: Tenant, reportId: string) {
  return (await i.client.getReport({ projectId: t.projectId, reportId }, asPrincipal(principalOf(t)))).report!;
}

async function until(i: Instance, t: Tenant, reportId: string, status: string) {
  await waitUntil(
    async () => reportStatus.fromProto((await statusOf(i, t, reportId)).status) === status,
    60000,
    () => `report ${reportId} never became ${status}`,
  );
  return statusOf(i, t, reportId);
}

async function download(i: Instance, t: Tenant, reportId: string) {
  const res = await fetch(`http://127.0.0.1:${i.svc.httpPort}/reports/${t.projectId}/${reportId}/download`, {
    headers: { authorization: `Bearer ${i.internalToken}`, [PRINCIPAL_HEADER]: encodePrincipal(principalOf(t)) },
  });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe('reports generator: failures, leases, retention', () => {
  let working: Instance;
  let broken: Instance;
  let t: Tenant;

  beforeAll(async () => {
    [t, working, broken] = await Promise.all([
      testAdmin().tenant('owner'),
      startInstance('working', {}),
      // Nothing listens on port 1: every call to analytics fails as a service outage would.
      startInstance('broken', { ANALYTICS_URL: 'http://127.0.0.1:1' }),
    ]);
  });

  afterAll(async () => {
    for (const i of [working, broken]) {
      await i?.pool.end();
      await i?.svc.close();
    }
  });

  it('marks a generation that keeps failing `failed` with the reason, after REPORT_MAX_ATTEMPTS attempts; its download is a 409', async () => {
    const created = (await broken.client.createReport({ projectId: t.projectId, days: 7 }, asPrincipal(principalOf(t)))).report!;
    expect(reportStatus.fromProto(created.status)).toBe('pending');
    expect(created.sizeBytes).toBe(0n);
    expect(created.fileName).toMatch(/^assay-test-project-\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.pdf$/);
    const failed = await until(broken, t, created.id, 'failed');
    expect(failed.failureReason).toMatch(/^Could not get the report figures from the analytics service: .+ \(after 2 attempts\)$/);
    expect(failed.failureReason).not.toMatch(/127\.0\.0\.1|:1\b|ECONNREFUSED/);
    expect(failed.completedAt).toBeDefined();
    expect((await broken.pool.query('SELECT attempts FROM reports WHERE id = $1', [created.id])).rows[0].attempts).toBe(2);
    const res = await download(broken, t, created.id);
    expect(res.status).toBe(409);
    expect(JSON.parse(res.body.toString()).error).toEqual({ code: 'CONFLICT', message: expect.stringContaining('failed') });
  });

  it('answers 409 to the download of a pending report and 404 to another project’s or an unknown report', async () => {
    // Not yet due (as a report waiting for its retry): no worker takes it during this test.
    const id = await pendingReport(broken, t, `available_at = now() + interval '1 hour'`);
    expect((await download(broken, t, id)).status).toBe(409);
    const other = await testAdmin().tenant('owner');
    expect((await download(broken, other, id)).status).toBe(404);
    await expect(statusOf(broken, other, id)).rejects.toThrow(/not found/i);
    expect((await download(broken, t, newId())).status).toBe(404);
    expect((await download(broken, t, 'not-an-id')).status).toBe(404);
  });

  it('fails a report whose last attempt ran out of time ("did not finish"), never leaving it pending', async () => {
    const id = await pendingReport(broken, t, `attempts = 2, lease_until = now() - interval '1 second'`);
    const failed = await until(broken, t, id, 'failed');
    expect(failed.failureReason).toMatch(/^Generation did not finish: all 2 attempts ran out of time/);
  });

  it('takes up again a report left pending by a killed worker once its lease runs out, and makes it ready', async () => {
    // What a worker killed in the middle of its first attempt leaves behind: one attempt, a lease that ran out.
    const id = await pendingReport(working, t, `attempts = 1, lease_until = now() - interval '1 second'`);
    const ready = await until(working, t, id, 'ready');
    expect((await working.pool.query('SELECT attempts FROM reports WHERE id = $1', [id])).rows[0].attempts).toBe(2);
    const res = await download(working, t, id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.body.subarray(0, 5).toString()).toBe('%PDF-');
    expect(res.body.length).toBe(Number(ready.sizeBytes));
    expect(Number(res.headers.get('content-length'))).toBe(res.body.length);
  });

  it('lets no worker that lost its lease overwrite the report: the attempt number fences the writes', async () => {
    const id = await pendingReport(broken, t, `attempts = 2, available_at = now() + interval '1 hour'`);
    const stale = await withTransaction(broken.pool, (c) => completeReport(c, id, 1, Buffer.from('%PDF-stale'), new Date()));
    expect(stale).toBe(false);
    expect((await findReport(broken.pool, t.projectId, id))!.status).toBe('pending');
    expect((await broken.pool.query('SELECT count(*)::int AS n FROM report_pdfs WHERE report_id = $1', [id])).rows[0].n).toBe(0);
  });

  it('deletes reports and their PDFs once REPORT_RETENTION_DAYS have passed, and keeps younger ones', async () => {
    const created = (await working.client.createReport({ projectId: t.projectId, days: 1 }, asPrincipal(principalOf(t)))).report!;
    await until(working, t, created.id, 'ready');
    const expiresAt = (await findReport(working.pool, t.projectId, created.id))!.expiresAt;
    expect(expiresAt.getTime() - Number(created.createdAt!.seconds) * 1000).toBeGreaterThanOrEqual(30 * DAY_MS - 1000);

    const count = async () =>
      (await working.pool.query('SELECT count(*)::int AS n FROM report_pdfs WHERE report_id = $1', [created.id])).rows[0].n;
    expect(await count()).toBe(1);
    await sweepOnce({ pool: working.pool, now: () => new Date(Date.now() + 29 * DAY_MS) });
    expect(reportStatus.fromProto((await statusOf(working, t, created.id)).status)).toBe('ready');
    const deleted = await sweepOnce({ pool: working.pool, now: () => new Date(Date.now() + 31 * DAY_MS) });
    expect(deleted).toBeGreaterThanOrEqual(1);
    await expect(statusOf(working, t, created.id)).rejects.toThrow(/not found/i);
    expect(await count()).toBe(0);
  });
});
