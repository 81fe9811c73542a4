/** Spec §5 authentication and authorization, and the 401/403/404 rows of spec §7, over real HTTP. */
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { testAdmin, testApi, type Tenant } from '@assay/testkit';

const admin = testAdmin();

describe('authentication (spec §5)', () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await admin.tenant('owner');
  });

  const info = (authorization: string | null) => testApi().get(`/${t.projectId}/token-info`, { authorization });

  it('accepts exactly `Authorization: Bearer svc_pat_<token>`', async () => {
    const res = await info(`Bearer ${t.token}`);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it.each([
    ['missing header', null],
    ['lower-case scheme', 'bearer TOKEN'],
    ['upper-case scheme', 'BEARER TOKEN'],
    ['two spaces', 'Bearer  TOKEN'],
    ['no scheme', 'TOKEN'],
    ['wrong prefix', 'Bearer pat_TOKEN_BODY'],
    ['Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['trailing garbage', 'Bearer TOKEN x'],
  ])('refuses %s with 401 UNAUTHORIZED', async (_name, header) => {
    const res = await info(header === null ? null : header.replace('TOKEN', t.token).replace('TOKEN_BODY', t.token.slice(8)));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: 'Invalid or unknown user token' } });
  });

  it('refuses a token with a broken checksum and a well-formed token nobody issued', async () => {
    const flipped = t.token.slice(0, -1) + (t.token.endsWith('0') ? '1' : '0');
    expect((await info(`Bearer ${flipped}`)).body.error.code).toBe('UNAUTHORIZED');
    // Right shape and checksum, but never issued.
    const secret = randomBytes(32).toString('hex');
    const unknown = `svc_pat_${secret}${crc32(secret).toString(16).padStart(8, '0')}`;
    expect((await info(`Bearer ${unknown}`)).status).toBe(401);
  });

  it('refuses a revoked token on the very next request, even right after a cached success', async () => {
    const m = await admin.member(t.orgId, 'member', { projects: [t.projectId] });
    expect((await info(`Bearer ${m.token}`)).status).toBe(200);
    expect((await info(`Bearer ${m.token}`)).status).toBe(200); // now cached
    await admin.rpc.revokeToken({ id: m.tokenId });
    const res = await info(`Bearer ${m.token}`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('TOKEN_REVOKED');
  });

  it('refuses the old secret of a rotated token with TOKEN_REVOKED and accepts the new one', async () => {
    const m = await admin.member(t.orgId, 'member', { projects: [t.projectId] });
    expect((await info(`Bearer ${m.token}`)).status).toBe(200);
    const rotated = await admin.rpc.rotateToken({ id: m.tokenId });
    expect(rotated.id).toBe(m.tokenId);
    expect((await info(`Bearer ${m.token}`)).body.error.code).toBe('TOKEN_REVOKED');
    const fresh = await info(`Bearer ${rotated.token}`);
    expect(fresh.status).toBe(200);
    expect(fresh.body.data.id).toBe(m.tokenId);
  });

  it('refuses an expired token with TOKEN_EXPIRED', async () => {
    const m = await admin.member(t.orgId, 'member', { projects: [t.projectId], expiresInSeconds: 1 });
    expect((await info(`Bearer ${m.token}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    const res = await info(`Bearer ${m.token}`);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('TOKEN_EXPIRED');
  });

  it('answers 401 before anything else: no rate-limit headers, no body parsing', async () => {
    const res = await testApi().post(`/${t.projectId}/manual-test-suites`, { name: 'x' }, { authorization: null });
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });
});

describe('project scope (spec §5.3)', () => {
  it('answers 404 NOT_FOUND for a project the token does not cover, an unknown project and another organization', async () => {
    const t = await admin.tenant('owner');
    const second = await admin.project(t.orgId, 'Second');
    const other = await admin.tenant('owner');
    for (const projectId of [second, other.projectId, '0123456789abcdef01234567', 'not-an-id']) {
      const res = await testApi(t.token).get(`/${projectId}/token-info`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
  });

  it('a wildcard token covers every project of the user’s organizations and nothing else', async () => {
    const t = await admin.tenant('owner');
    const second = await admin.project(t.orgId, 'Second');
    const wildcard = await admin.token(t.userId, { projects: '*' });
    expect((await testApi(wildcard.token).get(`/${second}/token-info`)).status).toBe(200);
    const other = await admin.tenant('owner');
    expect((await testApi(wildcard.token).get(`/${other.projectId}/token-info`)).status).toBe(404);
  });
});

describe('roles (spec §5.4-5.5, §7 403)', () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await admin.tenant('owner');
  });

  it.each(['owner', 'admin', 'member'] as const)('%s may write', async (role) => {
    const m = await admin.member(t.orgId, role, { projects: [t.projectId] });
    const res = await testApi(m.token).post(`/${t.projectId}/manual-test-suites`, { name: `by ${role}` });
    expect(res.status).toBe(201);
  });

  it('a viewer may read but gets 403 FORBIDDEN on a write', async () => {
    const v = await admin.member(t.orgId, 'viewer', { projects: [t.projectId] });
    expect((await testApi(v.token).get(`/${t.projectId}/manual-test-suites`)).status).toBe(200);
    const res = await testApi(v.token).post(`/${t.projectId}/manual-test-suites`, { name: 'nope' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN' } });
  });

  it('permission follows the live organization role, not the token', async () => {
    const m = await admin.member(t.orgId, 'viewer', { projects: [t.projectId] });
    expect((await testApi(m.token).post(`/${t.projectId}/manual-test-suites`, { name: 'a' })).status).toBe(403);
    await admin.setRole(t.orgId, m.userId, 'member');
    expect((await testApi(m.token).post(`/${t.projectId}/manual-test-suites`, { name: 'b' })).status).toBe(201);
    await admin.setRole(t.orgId, m.userId, 'viewer');
    expect((await testApi(m.token).post(`/${t.projectId}/manual-test-suites`, { name: 'c' })).status).toBe(403);
  });

  it('a project api key may read but not write manual tests (403)', async () => {
    const key = await admin.apiKey(t.projectId);
    expect(key.uploadKey).toMatch(/^trx_production_[0-9a-f]{64}$/);
    expect(key.token).toMatch(/^svc_pat_[0-9a-f]{72}$/);
    expect(key.token.slice(8, 72)).toBe(key.uploadKey.slice('trx_production_'.length));
    expect((await testApi(key.token).get(`/${t.projectId}/manual-test-suites`)).status).toBe(200);
    expect((await testApi(key.token).post(`/${t.projectId}/manual-test-suites`, { name: 'x' })).status).toBe(403);
  });

  it('authenticated refusals (403 role, 404 project) carry the rate-limit headers; a 401 does not', async () => {
    const v = await admin.member(t.orgId, 'viewer', { projects: [t.projectId] });
    const forbidden = await testApi(v.token).post(`/${t.projectId}/manual-test-suites`, { name: 'x' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(forbidden.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    const other = await admin.tenant('owner');
    const notFound = await testApi(v.token).get(`/${other.projectId}/token-info`);
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    const unauthorized = await testApi().get(`/${t.projectId}/token-info`);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('ratelimit-limit')).toBeNull();
  });

  it('a validation error is not reached by a viewer: 403 comes first', async () => {
    const v = await admin.member(t.orgId, 'viewer', { projects: [t.projectId] });
    const res = await testApi(v.token).post(`/${t.projectId}/manual-test-suites`, { bogus: true });
    expect(res.status).toBe(403);
  });
});
