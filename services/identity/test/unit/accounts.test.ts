/**
 * AccountService (handlers/accounts.ts) and the session side of AuthService, through an in-memory Connect
 * transport against a schema of their own and the real Redis of the tier: sign-in (no enumeration), invitations
 * and sign-in links (once, until they expire), sessions (idle and absolute expiry, sign-out everywhere), the
 * account's organizations and projects, and the account's own tokens.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ConnectError } from '@connectrpc/connect';
import { fromConnectError } from '@assay/errors';
import { AccountService, AdminService, AuthService, Role } from '@assay/proto/assay/identity/v1/identity_pb';
import { formatCallers, idempotencyHeaderValue, IDEMPOTENCY_RECORD_HEADER, IDEMPOTENCY_REPLAYED_HEADER } from '@assay/service-kit';
import { inMemoryClient, testContext, testSchema, unitInfra, type TestSchema } from '@assay/testkit';
import { loadIdentityConfig } from '../../src/config';
import { routes } from '../../src/routes';
import { MIGRATIONS_DIR } from '../../src/service';
import { wire, type Wiring } from '../../src/wiring';

let db: TestSchema;
let w: Wiring;
let account: ReturnType<typeof inMemoryClient<typeof AccountService>>;
let admin: ReturnType<typeof inMemoryClient<typeof AdminService>>;
let auth: ReturnType<typeof inMemoryClient<typeof AuthService>>;
const PASSWORD = 'a long enough password';
const hash = (s: string) => createHash('sha256').update(s).digest();
const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');

beforeAll(async () => {
  db = await testSchema(MIGRATIONS_DIR, 'identity-accounts');
  const config = loadIdentityConfig({
    INTERNAL_AUTH_TOKEN: 'x'.repeat(32),
    INTERNAL_CALLERS: formatCallers({ gateway: 'g'.repeat(32) }),
    REDIS_URL: unitInfra().redisUrl,
    PUBLIC_UI_URL: 'https://assay.example.test/',
    LOG_LEVEL: 'silent',
  });
  w = wire(testContext('identity', config, db.pool));
  const router = (r: Parameters<typeof routes>[0]) => routes(r, w);
  account = inMemoryClient(AccountService, router);
  admin = inMemoryClient(AdminService, router);
  auth = inMemoryClient(AuthService, router);
});
afterAll(async () => {
  await w.close();
  await db.drop();
});

async function reason(call: Promise<unknown>) {
  try {
    await call;
  } catch (err) {
    return fromConnectError(ConnectError.from(err)).reason;
  }
  return 'ok';
}

let n = 0;
async function member(role = Role.MEMBER) {
  const orgId = (await admin.createOrg({ name: `Org ${++n}` })).id;
  const projectId = (await admin.createProject({ orgId, name: `Project ${n}` })).id;
  const email = `user${n}@example.test`;
  const userId = (await admin.createUser({ email, name: `User ${n}` })).id;
  await admin.addMember({ orgId, userId, role });
  return { orgId, projectId, email, userId };
}

async function withPassword(u: { userId: string }) {
  const inv = await admin.createInvitation({ userId: u.userId });
  const res = await account.acceptInvitation({ token: tokenOf(inv.url), password: PASSWORD });
  return res.signedIn!;
}

describe('invitations and sign-in', () => {
  it('an invitation sets the password and signs in once; the link carries its token in the fragment', async () => {
    const u = await member();
    const inv = await admin.createInvitation({ userId: u.userId });
    expect(inv.url).toMatch(/^https:\/\/assay\.example\.test\/accept-invitation#token=[A-Za-z0-9_-]{43}$/);
    expect(await reason(account.acceptInvitation({ token: tokenOf(inv.url), password: 'short' }))).toBe('VALIDATION_ERROR');
    const first = await account.acceptInvitation({ token: tokenOf(inv.url), password: PASSWORD });
    expect(first.signedIn?.session).toMatchObject({ userId: u.userId, userEmail: u.email });
    expect((await account.acceptInvitation({ token: tokenOf(inv.url), password: PASSWORD })).signedIn).toBeUndefined();
    const stored = await db.pool.query(`SELECT password_hash FROM users WHERE id = $1`, [u.userId]);
    expect(stored.rows[0].password_hash).toMatch(/^\$argon2id\$/);
    expect(stored.rows[0].password_hash).not.toContain(PASSWORD);
  });

  it('a password is 12 to 256 characters as the API counts them: 256 emoji (512 UTF-16 units) set and sign in', async () => {
    const u = await member();
    const inv = await admin.createInvitation({ userId: u.userId });
    const longest = '🔑'.repeat(256);
    expect(await reason(account.acceptInvitation({ token: tokenOf(inv.url), password: `${longest}!` }))).toBe('VALIDATION_ERROR');
    expect((await account.acceptInvitation({ token: tokenOf(inv.url), password: longest })).signedIn?.session?.userId).toBe(u.userId);
    expect((await account.login({ email: u.email, password: longest })).signedIn?.session?.userId).toBe(u.userId);
    // Twelve characters are enough even when each is two UTF-16 units; eleven are not.
    const again = await admin.createInvitation({ userId: u.userId });
    expect(await reason(account.acceptInvitation({ token: tokenOf(again.url), password: '🔑'.repeat(11) }))).toBe('VALIDATION_ERROR');
    expect((await account.acceptInvitation({ token: tokenOf(again.url), password: '🔑'.repeat(12) })).signedIn?.session?.userId).toBe(
      u.userId,
    );
  });

  it('an expired invitation or sign-in link signs nobody in', async () => {
    const u = await member();
    const inv = await admin.createInvitation({ userId: u.userId });
    const link = await admin.createSignInLink({ userId: u.userId });
    await db.pool.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [u.userId]);
    expect((await account.acceptInvitation({ token: tokenOf(inv.url), password: PASSWORD })).signedIn).toBeUndefined();
    expect((await account.useSignInLink({ token: tokenOf(link.url) })).signedIn).toBeUndefined();
  });

  it('a sign-in link is not an invitation (and the reverse)', async () => {
    const u = await member();
    const link = await admin.createSignInLink({ userId: u.userId });
    expect((await account.acceptInvitation({ token: tokenOf(link.url), password: PASSWORD })).signedIn).toBeUndefined();
    expect((await account.useSignInLink({ token: tokenOf(link.url) })).signedIn?.session?.userId).toBe(u.userId);
  });

  it('sign-in: right password → a session; wrong password, unknown e-mail, no password yet → the same empty answer', async () => {
    const u = await member();
    await withPassword(u);
    expect((await account.login({ email: u.email.toUpperCase(), password: PASSWORD })).signedIn?.session?.userId).toBe(u.userId);
    expect(await account.login({ email: u.email, password: 'wrong password here' })).toEqual(
      await account.login({ email: 'nobody@example.test', password: 'wrong password here' }),
    );
    const fresh = await member();
    expect((await account.login({ email: fresh.email, password: PASSWORD })).signedIn).toBeUndefined();
  });
});

describe('sessions', () => {
  it("token info of a live session: the PAT it acts as (every project of the user's organizations); an ended one is refused", async () => {
    const u = await member();
    const a = await withPassword(u);
    const info = await auth.getTokenInfo({ sessionId: a.session!.id, projectId: '' });
    expect(info.token).toMatchObject({ id: `session:${a.session!.id}`, userId: u.userId, allProjects: true });
    expect(info.onlyProject?.id).toBe(u.projectId);
    expect(info.token!.expiresAt).toEqual(a.session!.expiresAt);
    expect(info.token!.lastUsedAt).toBeDefined();
    expect(info.scopes.map((s) => s.allProjects)).toEqual([true]);
    expect(info.permissions).toEqual([]);
    await account.logout({ sessionHash: hash(a.sessionId) });
    for (const sessionId of [a.session!.id, 'f'.repeat(24), 'not an id']) {
      expect([sessionId, await reason(auth.getTokenInfo({ sessionId, projectId: '' }))]).toEqual([sessionId, 'VALIDATION_ERROR']);
    }
  });

  it('GetSession finds a live session by the hash of its cookie; sign-out ends it; sign-out everywhere ends all', async () => {
    const u = await member();
    const a = await withPassword(u);
    const b = (await account.login({ email: u.email, password: PASSWORD })).signedIn!;
    expect((await auth.getSession({ sessionHash: hash(a.sessionId) })).session?.id).toBe(a.session!.id);
    await account.logout({ sessionHash: hash(a.sessionId) });
    expect((await auth.getSession({ sessionHash: hash(a.sessionId) })).found).toBe(false);
    expect((await auth.getSession({ sessionHash: hash(b.sessionId) })).found).toBe(true);
    await account.logoutEverywhere({ userId: u.userId });
    expect((await auth.getSession({ sessionHash: hash(b.sessionId) })).found).toBe(false);
  });

  it('an idle session, and a session past its absolute expiry, are not found', async () => {
    const u = await member();
    const idle = await withPassword(u);
    const old = (await account.login({ email: u.email, password: PASSWORD })).signedIn!;
    await db.pool.query(`UPDATE sessions SET idle_expires_at = now() - interval '1 second' WHERE id = $1`, [idle.session!.id]);
    await db.pool.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [old.session!.id]);
    expect((await auth.getSession({ sessionHash: hash(idle.sessionId) })).found).toBe(false);
    expect((await auth.getSession({ sessionHash: hash(old.sessionId) })).found).toBe(false);
  });

  it("a session's project access: the user's organizations only, with the live role and the user's generation", async () => {
    const u = await member(Role.VIEWER);
    const other = await member();
    const access = await auth.getProjectAccess({ userId: u.userId, projectId: u.projectId });
    expect(access.access).toMatchObject({ covered: true, role: Role.VIEWER, orgId: u.orgId });
    const before = access.generations!.user;
    await admin.setMemberRole({ orgId: u.orgId, userId: u.userId, role: Role.ADMIN });
    const after = await auth.getProjectAccess({ userId: u.userId, projectId: u.projectId });
    expect(after.access?.role).toBe(Role.ADMIN);
    expect(after.generations!.user).toBeGreaterThan(before);
    expect((await auth.getProjectAccess({ userId: u.userId, projectId: other.projectId })).access?.covered).toBe(false);
  });
});

describe('the account and its tokens', () => {
  it('GetAccount lists the organizations (with the role) and their projects', async () => {
    const u = await member(Role.OWNER);
    const res = await account.getAccount({ userId: u.userId });
    expect(res).toMatchObject({ userId: u.userId, email: u.email });
    expect(res.organizations).toEqual([expect.objectContaining({ id: u.orgId, role: Role.OWNER })]);
    expect(res.projects.map((p) => p.id)).toEqual([u.projectId]);
  });

  it('creates (30/60/90/180 days, own projects only), lists, rotates and revokes; another user cannot touch them', async () => {
    const u = await member();
    const stranger = await member();
    expect(await reason(account.createAccountToken({ userId: u.userId, name: 'x', expiresInDays: 7, projectIds: ['*'] }))).toBe(
      'VALIDATION_ERROR',
    );
    expect(
      await reason(account.createAccountToken({ userId: u.userId, name: 'x', expiresInDays: 30, projectIds: [stranger.projectId] })),
    ).toBe('VALIDATION_ERROR');
    const created = await account.createAccountToken({ userId: u.userId, name: 'CI', expiresInDays: 30, projectIds: [u.projectId] });
    expect(created.secret).toMatch(/^svc_pat_/);
    expect(created.token).toMatchObject({ name: 'CI', allProjects: false, projects: [{ id: u.projectId }] });
    expect((await account.listAccountTokens({ userId: u.userId })).tokens.map((t) => t.id)).toEqual([created.token!.id]);
    expect(await reason(account.revokeAccountToken({ userId: stranger.userId, tokenId: created.token!.id }))).toBe('NOT_FOUND');
    const rotated = await account.rotateAccountToken({ userId: u.userId, tokenId: created.token!.id });
    expect(rotated.secret).not.toBe(created.secret);
    await account.revokeAccountToken({ userId: u.userId, tokenId: created.token!.id });
    expect((await account.listAccountTokens({ userId: u.userId })).tokens[0]!.revoked).toBe(true);
  });

  it("a token created under an Idempotency-Key's record is created once: the retry gets the same token and secret", async () => {
    const u = await member();
    const r = { record: 'a'.repeat(64), fingerprint: 'b'.repeat(64), ttlSeconds: 86_400, sealKey: randomBytes(32) };
    const replayed: boolean[] = [];
    const options = {
      headers: { [IDEMPOTENCY_RECORD_HEADER]: idempotencyHeaderValue(r) },
      onHeader: (h: Headers) => replayed.push(h.get(IDEMPOTENCY_REPLAYED_HEADER) === 'true'),
    };
    const body = { userId: u.userId, name: 'CI', expiresInDays: 30, projectIds: [u.projectId] };
    const first = await account.createAccountToken(body, options);
    const again = await account.createAccountToken(body, options);
    expect(again).toEqual(first);
    expect(replayed).toEqual([false, true]);
    expect((await account.listAccountTokens({ userId: u.userId })).tokens.map((t) => t.id)).toEqual([first.token!.id]);
    // The secret is sealed in the record, not kept in clear.
    const { rows } = await db.pool.query('SELECT answer FROM idempotency_keys WHERE record = $1', [r.record]);
    expect(Buffer.from(rows[0].answer).includes(Buffer.from(first.secret))).toBe(false);
  });
});
