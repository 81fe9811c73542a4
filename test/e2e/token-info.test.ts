/** Token info (spec §2.2, CONTRACT §1-2): shape, scopes, projectName, quotas, the project-less form. */
import { SHARED_GATEWAY_RATE_LIMITS as L, testAdmin, testApi } from '@assay/testkit';

const admin = testAdmin();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('GET /{projectId}/token-info', () => {
  it('describes a personal token scoped to named projects', async () => {
    const t = await admin.tenant('member');
    const res = await testApi(t.token).get(`/${t.projectId}/token-info`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
    const d = res.body.data;
    expect(d).toEqual({
      id: t.tokenId,
      type: 'pat',
      scopes: [{ orgId: t.orgId, projects: [{ id: t.projectId, name: 'Test project' }] }],
      projectName: 'Test project',
      expiresAt: null,
      createdAt: expect.stringMatching(ISO),
      lastUsed: expect.stringMatching(ISO), // this request counts as a use
      rateLimits: {
        // the shared test gateway's configured quotas (the spec defaults are checked in rate-limits.test.ts)
        reads: { limit: L.reads, windowSeconds: 60 },
        writes: { limit: L.writes, windowSeconds: 60 },
        manualRunCreate: { limit: L.manualRunCreate, windowSeconds: 60 },
        pdf: { limit: L.pdf, windowSeconds: 60 },
        ingest: { limit: L.ingest, windowSeconds: 60 },
      },
    });
  });

  it('reports lastUsed once the token has been used', async () => {
    const t = await admin.tenant('member');
    await testApi(t.token).get(`/${t.projectId}/token-info`);
    await new Promise((r) => setTimeout(r, 300));
    const res = await testApi(t.token).get(`/${t.projectId}/token-info`);
    expect(res.body.data.lastUsed).toMatch(ISO);
    expect(Math.abs(Date.parse(res.body.data.lastUsed) - Date.now())).toBeLessThan(10000);
  });

  it('shows a wildcard scope as "*" and projectName null', async () => {
    const t = await admin.tenant('owner');
    const wildcard = await admin.token(t.userId, { projects: '*', expiresInSeconds: 30 * 86400 });
    const res = await testApi(wildcard.token).get(`/${t.projectId}/token-info`);
    expect(res.status).toBe(200);
    expect(res.body.data.scopes).toEqual([{ orgId: t.orgId, projects: '*' }]);
    expect(res.body.data.projectName).toBeNull();
    const expires = Date.parse(res.body.data.expiresAt);
    expect(Math.abs(expires - (Date.now() + 30 * 86400 * 1000))).toBeLessThan(60000);
  });

  it('describes a project api key with its permission strings', async () => {
    const t = await admin.tenant('owner');
    const key = await admin.apiKey(t.projectId);
    const res = await testApi(key.token).get(`/${t.projectId}/token-info`);
    expect(res.body.data).toMatchObject({
      id: key.id,
      type: 'api_key',
      scopes: ['read', 'ingest', { orgId: t.orgId, projects: [{ id: t.projectId, name: 'Test project' }] }],
      projectName: 'Test project',
    });
  });
});

describe('GET /token-info (no project)', () => {
  it('adds project {id, name} when the token covers exactly one project', async () => {
    const t = await admin.tenant('owner');
    const res = await testApi(t.token).get('/token-info');
    expect(res.status).toBe(200);
    expect(res.body.data.project).toEqual({ id: t.projectId, name: 'Test project' });
    expect(res.body.data.projectName).toBeNull();
  });

  it('omits project when the token covers several', async () => {
    const t = await admin.tenant('owner');
    const second = await admin.project(t.orgId, 'Second');
    const tok = await admin.token(t.userId, { projects: [t.projectId, second] });
    const res = await testApi(tok.token).get('/token-info');
    expect(res.status).toBe(200);
    expect(res.body.data.project).toBeUndefined();
    expect(res.body.data.scopes[0].projects).toHaveLength(2);
  });

  it('works under the alias and refuses a missing token with 401', async () => {
    const t = await admin.tenant('owner');
    expect((await testApi(t.token).get('/api/public/v1/token-info')).status).toBe(200);
    const res = await testApi().get('/token-info');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });
});
