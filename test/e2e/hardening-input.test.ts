/**
 * Hardening (issue 15, item 9): wrong statuses under bad input and faults.
 *  - A NUL character in a path parameter, a query value or anywhere in a JSON body is 400 VALIDATION_ERROR
 *    naming where, never a 500, and nothing is written; in a streamed ingestion body too.
 *  - URL fields (issue 15, item 6) take http and https only: `javascript:` or `data:` in a linked issue, a deploy
 *    URL, a run link or the CI links of ingestion metadata is 400 naming the field, and nothing is created.
 *  - The identity service's database down while a request authenticates: 503 SERVICE_UNAVAILABLE with
 *    Retry-After (the caller should retry), never 500.
 */
import { randomBytes } from 'node:crypto';
import { Role } from '@assay/proto/assay/identity/v1/identity_pb';
import { formatCallers } from '@assay/service-kit';
import {
  ADMIN,
  Admin,
  credentialEnv,
  freePorts,
  SHARED_GATEWAY_RATE_LIMITS_ENV,
  startPrivateGateway,
  startPrivatePostgres,
  startProcess,
  testAdmin,
  testApi,
  testSystem,
  waitUntil,
  type ManagedProcess,
  type PrivateGateway,
  type PrivatePostgres,
  type Tenant,
} from '@assay/testkit';

describe('NUL characters', () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await testAdmin().tenant('owner');
  });
  const suites = async () => (await testApi(t.token).get(`/${t.projectId}/manual-test-suites?limit=100`)).body.pagination.total;

  it.each<[string, () => Promise<{ status: number; body: any }>, string]>([
    ['a body string', () => testApi(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'a\u0000b' }), 'body.name'],
    [
      'a nested body string',
      () =>
        testApi(t.token).post(`/${t.projectId}/manual-test-cases`, {
          title: 'nul',
          suiteName: 'none',
          steps: [{ action: 'open\u0000' }],
        }),
      'body.steps.0.action',
    ],
    ['a query value', () => testApi(t.token).get(`/${t.projectId}/manual-test-cases?search=a%00b`), 'query.search'],
    ['a path parameter', () => testApi(t.token).get(`/${t.projectId}/manual-test-cases/TC%00`), 'path.caseId'],
  ])('in %s → 400 VALIDATION_ERROR naming it, nothing written', async (_label, call, path) => {
    const before = await suites();
    const res = await call();
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual([{ path, message: 'must not contain a NUL character' }]);
    expect(await suites()).toBe(before);
  });

  it('in a streamed ingestion body → 400 VALIDATION_ERROR, no run created', async () => {
    const api = testApi(t.token);
    const before = (await api.get(`/${t.projectId}/test-runs`)).body.pagination.total;
    const res = await api.post(`/api/v1/ingest/${t.projectId}/runs`, { metadata: { git: { branch: 'main\u0000evil' } } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect((await api.get(`/${t.projectId}/test-runs`)).body.pagination.total).toBe(before);
  });
});

describe('URL fields: http and https only', () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await testAdmin().tenant('owner');
  });

  it.each<[string, string, Record<string, unknown>, string]>([
    [
      'a session linked issue',
      'sessions',
      { name: 's', linkedIssues: [{ url: 'javascript:alert(document.cookie)' }] },
      'body.linkedIssues.0.url',
    ],
    [
      'a release deploy URL',
      'releases',
      { name: 'r', buildTarget: { platform: 'web', deployUrl: 'javascript:alert(1)' } },
      'body.buildTarget.deployUrl',
    ],
    [
      'a manual run link',
      'manual-runs',
      { name: 'm', links: [{ title: 'CI', url: 'data:text/html;base64,PHNjcmlwdD54KCk8L3NjcmlwdD4=' }] },
      'body.links.0.url',
    ],
    [
      'a manual run linked issue',
      'manual-runs',
      { name: 'm', linkedIssues: [{ displayId: 'A-1', url: 'vbscript:x' }] },
      'body.linkedIssues.0.url',
    ],
  ])('%s → 400, nothing created', async (_what, family, body, path) => {
    const api = testApi(t.token);
    const before = (await api.get(`/${t.projectId}/${family}`)).body.pagination.total;
    const res = await api.post(`/${t.projectId}/${family}`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path, message: 'must be an http or https URL' }]);
    expect((await api.get(`/${t.projectId}/${family}`)).body.pagination.total).toBe(before);
  });

  it.each([
    ['ci.buildUrl', { ci: { buildUrl: 'javascript:alert(1)' } }, 'body.metadata.ci.buildUrl'],
    ['ci.pipeline.url', { ci: { pipeline: { id: '1', url: 'JAVASCRIPT:alert(1)' } } }, 'body.metadata.ci.pipeline.url'],
    [
      'git.repository.url',
      { git: { branch: 'main', repository: { name: 'r', url: 'data:text/html,x' } } },
      'body.metadata.git.repository.url',
    ],
  ])('ingestion metadata %s → 400, no run created', async (_what, metadata, path) => {
    const api = testApi(t.token);
    const before = (await api.get(`/${t.projectId}/test-runs`)).body.pagination.total;
    const res = await api.post(`/api/v1/ingest/${t.projectId}/runs`, { metadata });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path, message: 'must be an http or https URL' }] });
    expect((await api.get(`/${t.projectId}/test-runs`)).body.pagination.total).toBe(before);
    const ok = await api.post(`/api/v1/ingest/${t.projectId}/runs`, { metadata: { ci: { buildUrl: 'https://ci.example.test/1' } } });
    expect(ok.status).toBe(201);
  });
});

describe('identity database down while authenticating', () => {
  let pg: PrivatePostgres;
  let identity: ManagedProcess;
  let gateway: PrivateGateway;
  let tokens: { projectId: string; used: string; fresh: string };

  beforeAll(async () => {
    const s = testSystem();
    pg = await startPrivatePostgres();
    const [rpcPort, httpPort] = await freePorts(2);
    identity = startProcess({
      name: `identity-db-down-${rpcPort}`,
      dir: 'services/identity',
      logDir: s.logDir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        LOG_LEVEL: 'warn',
        DATABASE_URL: pg.url,
        REDIS_URL: s.infra.REDIS_URL,
        KAFKA_BROKERS: s.infra.KAFKA_BROKERS,
        RPC_PORT: String(rpcPort),
        HTTP_PORT: String(httpPort),
        INTERNAL_AUTH_TOKEN: randomBytes(32).toString('hex'),
        // The shared gateway's credential (the private gateway presents it) and the admin's.
        INTERNAL_CALLERS: formatCallers({ gateway: s.credentials.gateway!, [ADMIN]: s.internalToken }),
      },
    });
    await waitUntil(
      async () => (await fetch(`http://127.0.0.1:${httpPort}/readyz`).catch(() => undefined))?.status === 200,
      60000,
      () => 'private identity did not start',
    );
    gateway = await startPrivateGateway({
      name: 'identity-db-down',
      // The shared test Redis counts every test's requests from this address: the shared gateway's raised limits.
      env: {
        IDENTITY_URL: `http://127.0.0.1:${rpcPort}`,
        RATE_LIMITS: SHARED_GATEWAY_RATE_LIMITS_ENV,
        ...credentialEnv('gateway', s.credentials),
      },
    });
    const admin = new Admin(`http://127.0.0.1:${rpcPort}`, s.internalToken);
    const orgId = await admin.org();
    const projectId = await admin.project(orgId);
    const userId = (await admin.rpc.createUser({ email: `db-down-${rpcPort}@example.test`, name: 'Db Down' })).id;
    await admin.rpc.addMember({ orgId, userId, role: Role.OWNER });
    tokens = { projectId, used: (await admin.token(userId)).token, fresh: (await admin.token(userId)).token };
  });

  afterAll(async () => {
    await gateway?.stop();
    await identity?.stop();
    await pg?.remove();
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After (not 500), and recovers when the database is back', async () => {
    expect((await gateway.api(tokens.used).get(`/${tokens.projectId}/token-info`)).status).toBe(200);
    await pg.stop();
    // A token the gateway has not cached yet: authenticating it needs the database.
    const res = await gateway.api(tokens.fresh).get(`/${tokens.projectId}/token-info`);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres/i);
    await pg.start();
    await waitUntil(
      async () => (await gateway.api(tokens.fresh).get(`/${tokens.projectId}/token-info`)).status === 200,
      30000,
      () => 'the gateway did not recover once the database was back',
    );
  });
});
