/**
 * AuthService (handlers/auth.ts), the gateway's questions, through the in-memory transport: authentication by
 * the secret's hash, project access with the live role, token info; and every answer carrying the generations it
 * read, which are the ones identity raises in Redis (so the gateway's cache can tell a stale entry).
 */
import { Role, TokenType } from '@assay/proto/assay/identity/v1/identity_pb';
import { identityUnit, refused, secretHashOf, type IdentityUnit } from './fixture';

let u: IdentityUnit;
beforeAll(async () => {
  u = await identityUnit('identity_auth');
});
afterAll(() => u.close());

describe('identity auth handlers', () => {
  it('authenticates by the SHA-256 of the secret; an unknown secret is not found, a wrong-length hash refused', async () => {
    const t = await u.tenant(Role.MEMBER);
    const res = await u.auth.authenticate({ secretHash: secretHashOf(t.token) });
    expect(res).toMatchObject({ found: true, token: { id: t.tokenId, type: TokenType.PAT, userId: t.userId, revoked: false } });
    expect(res.generations).toMatchObject({ token: 0n, user: 1n });
    expect((await u.auth.authenticate({ secretHash: new Uint8Array(32) })).found).toBe(false);
    expect((await refused(u.auth.authenticate({ secretHash: new Uint8Array(16) }))).reason).toBe('VALIDATION_ERROR');
  });

  it('answers project access with the live role, coverage and the generations it read', async () => {
    const t = await u.tenant(Role.ADMIN);
    const access = await u.auth.getProjectAccess({ tokenId: t.tokenId, projectId: t.projectId });
    expect(access).toMatchObject({
      found: true,
      access: { projectId: t.projectId, orgId: t.orgId, role: Role.ADMIN, userEmail: t.email, covered: true },
    });
    await u.admin.setMemberRole({ orgId: t.orgId, userId: t.userId, role: Role.VIEWER });
    const after = await u.auth.getProjectAccess({ tokenId: t.tokenId, projectId: t.projectId });
    expect(after.access!.role).toBe(Role.VIEWER);
    expect(after.generations!.user).toBe(access.generations!.user + 1n);
    expect(Number(after.generations!.user)).toBe(await u.generation.user(t.userId));
  });

  it('a project outside the token is not covered; an unknown project or token, or a malformed id, is not found', async () => {
    const t = await u.tenant();
    const other = await u.tenant();
    const res = await u.auth.getProjectAccess({ tokenId: t.tokenId, projectId: other.projectId });
    expect(res.found).toBe(true);
    expect(res.access!.covered).toBe(false);
    expect(res.access!.role).toBe(Role.UNSPECIFIED);
    expect((await u.auth.getProjectAccess({ tokenId: t.tokenId, projectId: 'f'.repeat(24) })).found).toBe(false);
    expect((await u.auth.getProjectAccess({ tokenId: 'f'.repeat(24), projectId: t.projectId })).found).toBe(false);
    expect((await u.auth.getProjectAccess({ tokenId: 'nope', projectId: t.projectId })).found).toBe(false);
  });

  it('after a revocation the answer carries the raised token generation, equal to the one in Redis', async () => {
    const t = await u.tenant();
    await u.admin.revokeToken({ id: t.tokenId });
    const res = await u.auth.getProjectAccess({ tokenId: t.tokenId, projectId: t.projectId });
    expect(res.generations!.token).toBe(1n);
    expect(await u.generation.token(t.tokenId)).toBe(1);
  });

  it('token info: the named projects of a PAT, the path project, the last use', async () => {
    const t = await u.tenant();
    const info = await u.auth.getTokenInfo({ tokenId: t.tokenId, projectId: t.projectId });
    expect(info).toMatchObject({
      permissions: [],
      scopes: [{ orgId: t.orgId, allProjects: false, projects: [{ id: t.projectId }] }],
      projectName: expect.stringMatching(/^Project /),
    });
    expect(info.token!.lastUsedAt).toBeDefined();
    const bare = await u.auth.getTokenInfo({ tokenId: t.tokenId, projectId: '' });
    expect([bare.projectName, bare.onlyProject?.id]).toEqual(['', t.projectId]);
  });

  it('records a use at most once a minute: a second use within it writes no row version and answers the same time', async () => {
    const t = await u.tenant();
    const version = async () =>
      (await u.w.pool.query('SELECT xmin::text AS v, last_used_at FROM tokens WHERE id = $1', [t.tokenId])).rows[0] as {
        v: string;
        last_used_at: Date;
      };
    const first = await u.auth.getTokenInfo({ tokenId: t.tokenId, projectId: t.projectId });
    const written = await version();
    expect(written.last_used_at).not.toBeNull();
    const second = await u.auth.getTokenInfo({ tokenId: t.tokenId, projectId: t.projectId });
    expect(second.token!.lastUsedAt).toEqual(first.token!.lastUsedAt);
    expect(await version()).toEqual(written);
    // Over a minute later the use is recorded again.
    await u.w.pool.query(`UPDATE tokens SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [t.tokenId]);
    const later = await u.auth.getTokenInfo({ tokenId: t.tokenId, projectId: t.projectId });
    expect(Number(later.token!.lastUsedAt!.seconds)).toBeGreaterThan(Number(first.token!.lastUsedAt!.seconds) - 5);
    expect((await version()).v).not.toBe(written.v);
  });

  it('token info: a wildcard PAT covers its organizations; an api key lists its permissions; an unknown token is refused', async () => {
    const t = await u.tenant();
    await u.admin.createProject({ orgId: t.orgId, name: 'Second' });
    const wildcard = await u.admin.createToken({ userId: t.userId, projectIds: ['*'] });
    const w = await u.auth.getTokenInfo({ tokenId: wildcard.id, projectId: t.projectId });
    expect(w).toMatchObject({ scopes: [{ orgId: t.orgId, allProjects: true, projects: [] }], projectName: '' });
    expect((await u.auth.getTokenInfo({ tokenId: wildcard.id, projectId: '' })).onlyProject).toBeUndefined();
    const key = await u.admin.createToken({ projectId: t.projectId });
    const k = await u.auth.getTokenInfo({ tokenId: key.id, projectId: t.projectId });
    expect(k).toMatchObject({ permissions: ['read', 'ingest'], scopes: [{ orgId: t.orgId, projects: [{ id: t.projectId }] }] });
    expect((await refused(u.auth.getTokenInfo({ tokenId: 'f'.repeat(24), projectId: '' }))).reason).toBe('VALIDATION_ERROR');
  });
});
