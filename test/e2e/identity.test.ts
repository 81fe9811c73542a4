/**
 * The identity service and the internal credentials: each process presents its own credential, a service accepts
 * only the callers it lists, and admin RPCs answer only the admin CLI's credential. Revocations and role changes
 * take effect on the very next request, however the gateway's auth cache is timed.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { AdminService, IdentityService } from '@assay/proto/assay/identity/v1/identity_pb';
import { RunsAdminService } from '@assay/proto/assay/runs/v1/runs_pb';
import { AnalyticsAdminService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { createRpcClient } from '@assay/service-kit';
import { testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';

const s = () => testSystem();
const url = (service: string) => `http://127.0.0.1:${s().ports.services[service]!.rpcPort}`;

async function codeOf(call: Promise<unknown>): Promise<Code | 'ok'> {
  try {
    await call;
    return 'ok';
  } catch (err) {
    return ConnectError.from(err).code;
  }
}

describe('internal credentials', () => {
  it('admin RPCs refuse a service calling with its own credential (PermissionDenied), and answer the admin credential', async () => {
    const c = s().credentials;
    // manual-testing and reports may call identity, but not its AdminService.
    for (const caller of ['manual-testing', 'reports', 'gateway']) {
      const admin = createRpcClient(AdminService, { baseUrl: url('identity'), internalToken: c[caller]! });
      expect([caller, await codeOf(admin.createOrg({ name: 'Sneaky' }))]).toEqual([caller, Code.PermissionDenied]);
    }
    // reports may call runs and analytics, but not their admin services.
    const rules = createRpcClient(RunsAdminService, { baseUrl: url('runs'), internalToken: c.reports! });
    expect(await codeOf(rules.setPlan({ orgId: 'x'.repeat(24), planName: 'free', testResultsPerMonth: 1n }))).toBe(Code.PermissionDenied);
    const rebuild = createRpcClient(AnalyticsAdminService, { baseUrl: url('analytics'), internalToken: c.reports! });
    expect(await codeOf(rebuild.rebuild({ projectId: 'x'.repeat(24) }))).toBe(Code.PermissionDenied);
    // The admin credential is the one that works.
    const admin = createRpcClient(AdminService, { baseUrl: url('identity'), internalToken: c.admin! });
    expect(await codeOf(admin.createOrg({ name: 'Allowed' }))).toBe('ok');
  });

  it('a service refuses a credential it does not list (Unauthenticated): another process, or a made-up one', async () => {
    const c = s().credentials;
    // webhooks never calls identity, so identity does not know its credential.
    const asWebhooks = createRpcClient(IdentityService, { baseUrl: url('identity'), internalToken: c.webhooks! });
    expect(await codeOf(asWebhooks.getProject({ projectId: 'x'.repeat(24) }))).toBe(Code.Unauthenticated);
    const madeUp = createRpcClient(IdentityService, { baseUrl: url('identity'), internalToken: 'x'.repeat(64) });
    expect(await codeOf(madeUp.getProject({ projectId: 'x'.repeat(24) }))).toBe(Code.Unauthenticated);
    // manual-testing is a listed caller: it gets an answer (here NOT_FOUND for an unknown project).
    const asManualTesting = createRpcClient(IdentityService, { baseUrl: url('identity'), internalToken: c['manual-testing']! });
    expect(await codeOf(asManualTesting.getProject({ projectId: 'x'.repeat(24) }))).toBe(Code.NotFound);
  });
});

describe('auth cache and identity', () => {
  let t: Tenant;
  beforeEach(async () => {
    t = await testAdmin().tenant('owner');
  });

  it('a revocation holds for every request sent after it returned, with requests in flight around it', async () => {
    const api = testApi(t.token);
    const path = `/${t.projectId}/token-info`;
    expect((await api.get(path)).status).toBe(200);
    let revokedAt = Number.POSITIVE_INFINITY;
    const seen: { sentAt: number; status: number }[] = [];
    let stop = false;
    const hammer = async () => {
      while (!stop) {
        const sentAt = performance.now();
        const res = await api.get(path);
        seen.push({ sentAt, status: res.status });
      }
    };
    const loops = Array.from({ length: 8 }, hammer);
    await new Promise((r) => setTimeout(r, 300));
    await testAdmin().rpc.revokeToken({ id: t.tokenId });
    revokedAt = performance.now();
    await new Promise((r) => setTimeout(r, 500));
    stop = true;
    await Promise.all(loops);
    const before = seen.filter((x) => x.sentAt < revokedAt);
    const after = seen.filter((x) => x.sentAt > revokedAt);
    expect(before.some((x) => x.status === 200)).toBe(true);
    expect(after.length).toBeGreaterThan(10);
    expect(after.filter((x) => x.status !== 401)).toEqual([]);
    const res = await api.get(path);
    expect(res.body.error.code).toBe('TOKEN_REVOKED');
  });

  it('a role change takes effect on the next request (viewer → member → viewer)', async () => {
    const member = await testAdmin().member(t.orgId, 'viewer', { projects: [t.projectId] });
    const api = testApi(member.token);
    const create = () => api.post(`/${t.projectId}/manual-test-suites`, { name: `Suite ${Math.random()}` });
    expect((await create()).status).toBe(403);
    await testAdmin().setRole(t.orgId, member.userId, 'member');
    expect((await create()).status).toBe(201);
    await testAdmin().setRole(t.orgId, member.userId, 'viewer');
    expect((await create()).status).toBe(403);
  });

  it('a rotated token: the old secret is TOKEN_REVOKED at once, the new one works', async () => {
    const api = testApi(t.token);
    expect((await api.get(`/${t.projectId}/token-info`)).status).toBe(200);
    const rotated = await testAdmin().rpc.rotateToken({ id: t.tokenId });
    const old = await api.get(`/${t.projectId}/token-info`);
    expect([old.status, old.body.error.code]).toEqual([401, 'TOKEN_REVOKED']);
    expect((await testApi(rotated.token).get(`/${t.projectId}/token-info`)).status).toBe(200);
  });
});
