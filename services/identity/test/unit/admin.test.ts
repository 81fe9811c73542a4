/**
 * AdminService (handlers/admin.ts) through the in-memory transport on a schema of its own and the unit tier's
 * Redis: organizations, users, memberships, projects and tokens with their input checks and not-found cases; and
 * every revoke, rotate and role change raising the auth-cache generation in Redis to the value the database
 * committed (what the gateway's cache compares against).
 */
import { Role, TokenType } from '@assay/proto/assay/identity/v1/identity_pb';
import { identityUnit, NOW, refused, secretHashOf, type IdentityUnit } from './fixture';

let u: IdentityUnit;
beforeAll(async () => {
  u = await identityUnit('identity_admin');
});
afterAll(() => u.close());

describe('identity admin handlers', () => {
  it('creates organizations, users (e-mail lower-cased, the same user again for the same address) and projects', async () => {
    const orgId = (await u.admin.createOrg({ name: '  Acme  ' })).id;
    expect(orgId).toMatch(/^[0-9a-f]{24}$/);
    const userId = (await u.admin.createUser({ email: 'Ada@Example.TEST', name: 'Ada' })).id;
    expect((await u.admin.createUser({ email: 'ada@example.test', name: 'Ada again' })).id).toBe(userId);
    const projectId = (await u.admin.createProject({ orgId, name: 'Web shop' })).id;
    expect(await u.identity.getProject({ projectId })).toMatchObject({ id: projectId, orgId, name: 'Web shop' });
    expect((await u.identity.getProject({ projectId })).createdAt).toBeDefined();
  });

  it.each([
    ['an empty organization name', () => u.admin.createOrg({ name: '  ' }), 'name'],
    ['an organization name over 255 characters', () => u.admin.createOrg({ name: 'n'.repeat(256) }), 'name'],
    ['an e-mail without @', () => u.admin.createUser({ email: 'ada.example.test', name: 'Ada' }), 'email'],
    ['a user without a name', () => u.admin.createUser({ email: 'x@example.test', name: '' }), 'name'],
    ['an organization id that is none', () => u.admin.createProject({ orgId: 'nope', name: 'P' }), 'org'],
    ['an unknown role', () => u.admin.addMember({ orgId: 'a'.repeat(24), userId: 'b'.repeat(24), role: Role.UNSPECIFIED }), 'role'],
  ])('refuses %s with VALIDATION_ERROR at its field', async (_label, call, path) => {
    const e = await refused(call());
    expect([e.reason, e.details?.map((d) => d.path)]).toEqual(['VALIDATION_ERROR', [path]]);
  });

  it('answers NOT_FOUND for an unknown organization, user, membership or project', async () => {
    const t = await u.tenant();
    const ghost = 'f'.repeat(24);
    expect((await refused(u.admin.createProject({ orgId: ghost, name: 'P' }))).reason).toBe('NOT_FOUND');
    expect((await refused(u.admin.addMember({ orgId: ghost, userId: t.userId, role: Role.MEMBER }))).reason).toBe('NOT_FOUND');
    expect((await refused(u.admin.addMember({ orgId: t.orgId, userId: ghost, role: Role.MEMBER }))).reason).toBe('NOT_FOUND');
    expect((await refused(u.admin.setMemberRole({ orgId: t.orgId, userId: ghost, role: Role.ADMIN }))).reason).toBe('NOT_FOUND');
    expect((await refused(u.admin.createToken({ projectId: ghost }))).reason).toBe('NOT_FOUND');
    expect((await refused(u.admin.createToken({ userId: ghost }))).reason).toBe('NOT_FOUND');
    expect((await refused(u.admin.createToken({ userId: t.userId, projectIds: [ghost] }))).message).toContain(ghost);
    expect((await refused(u.admin.revokeToken({ id: ghost }))).reason).toBe('NOT_FOUND');
  });

  it('creates tokens: exactly one of user or project, a positive expiry from the clock, api keys with an upload key', async () => {
    const t = await u.tenant();
    expect((await refused(u.admin.createToken({}))).reason).toBe('VALIDATION_ERROR');
    expect((await refused(u.admin.createToken({ userId: t.userId, projectId: t.projectId }))).reason).toBe('VALIDATION_ERROR');
    expect((await refused(u.admin.createToken({ userId: t.userId, expiresInSeconds: -1n }))).reason).toBe('VALIDATION_ERROR');

    const key = await u.admin.createToken({ projectId: t.projectId });
    expect(key.token).toMatch(/^svc_pat_[0-9a-f]{72}$/);
    expect(key.uploadKey).toMatch(/^trx_production_[0-9a-f]{64}$/);
    const found = await u.auth.authenticate({ secretHash: secretHashOf(key.token) });
    expect(found.token).toMatchObject({ id: key.id, type: TokenType.API_KEY, projectId: t.projectId, userId: '' });

    const pat = await u.admin.createToken({ userId: t.userId, projectIds: ['*'], expiresInSeconds: 3600n });
    expect(pat.uploadKey).toBe('');
    const patInfo = (await u.auth.authenticate({ secretHash: secretHashOf(pat.token) })).token!;
    expect(patInfo).toMatchObject({ type: TokenType.PAT, allProjects: true });
    expect(Number(patInfo.expiresAt!.seconds) * 1000).toBe(NOW.getTime() + 3600_000);
  });

  it("a role change raises the user's generation in Redis to the committed one", async () => {
    const t = await u.tenant(Role.MEMBER);
    const before = (await u.auth.authenticate({ secretHash: secretHashOf(t.token) })).generations!.user;
    expect(await u.generation.user(t.userId)).toBe(Number(before));
    await u.admin.setMemberRole({ orgId: t.orgId, userId: t.userId, role: Role.VIEWER });
    const after = (await u.auth.getProjectAccess({ tokenId: t.tokenId, projectId: t.projectId })).generations!.user;
    expect(after).toBe(before + 1n);
    expect(await u.generation.user(t.userId)).toBe(Number(after));
    // Adding the user to another organization is a role change too.
    const other = (await u.admin.createOrg({ name: 'Other' })).id;
    await u.admin.addMember({ orgId: other, userId: t.userId, role: Role.ADMIN });
    expect(await u.generation.user(t.userId)).toBe(Number(after) + 1);
  });

  it("a revocation raises the token's generation in Redis; the token then authenticates as revoked", async () => {
    const t = await u.tenant();
    expect(await u.generation.token(t.tokenId)).toBeUndefined();
    await u.admin.revokeToken({ id: t.tokenId });
    const res = await u.auth.authenticate({ secretHash: secretHashOf(t.token) });
    expect(res.token!.revoked).toBe(true);
    expect(res.generations!.token).toBe(1n);
    expect(await u.generation.token(t.tokenId)).toBe(1);
    // Revoking again still raises (the generation only ever goes up).
    await u.admin.revokeToken({ id: t.tokenId });
    expect(await u.generation.token(t.tokenId)).toBe(2);
  });

  it('a rotation issues a new secret, revokes the old one and raises the generation; a revoked token cannot rotate', async () => {
    const t = await u.tenant();
    const rotated = await u.admin.rotateToken({ id: t.tokenId });
    expect(rotated).toMatchObject({ id: t.tokenId, uploadKey: '' });
    expect(rotated.token).not.toBe(t.token);
    const old = await u.auth.authenticate({ secretHash: secretHashOf(t.token) });
    const fresh = await u.auth.authenticate({ secretHash: secretHashOf(rotated.token) });
    expect([old.token!.revoked, fresh.token!.revoked]).toEqual([true, false]);
    expect(fresh.generations!.token).toBe(1n);
    expect(await u.generation.token(t.tokenId)).toBe(1);
    await u.admin.revokeToken({ id: t.tokenId });
    expect((await refused(u.admin.rotateToken({ id: t.tokenId }))).reason).toBe('NOT_FOUND');
  });
});
