/**
 * Accounts and sessions of the web app, over real HTTP against the whole system (CONTRACT §10): an invitation
 * link lets a user choose a password and signs them in; the session cookie (HttpOnly, SameSite=Lax) is accepted
 * by the public API as a token of that user over their projects — same roles, same 404 for other projects —
 * and cookie-signed writes need the CSRF header; sign-in attempts are limited and never tell whether an account
 * exists; sign-out (here or everywhere) holds on the next request; tokens are created, listed, rotated and
 * revoked from the account; ended sessions and spent links are deleted after SESSION_RETENTION_DAYS, live ones stay.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { Role } from '@assay/proto/assay/identity/v1/identity_pb';
import { startPrivateSystem, testAdmin, testApi, testSystem, type PrivateSystem, type Tenant } from '@assay/testkit';

const admin = testAdmin();
const APP = '/api/v1/app';
const PASSWORD = 'correct horse battery staple';

interface Browser {
  cookie?: string;
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

/** A cookie jar of one: what a browser sends back after the gateway set the session cookie (of the shared system by default). */
function browser(gatewayUrl = testSystem().gatewayUrl): Browser {
  const b: Browser = {
    async call(method, path, body, headers = {}) {
      const url = `${gatewayUrl}${path.startsWith('/api/') ? path : `/api/v1/public${path}`}`;
      const h: Record<string, string> = { ...headers };
      if (b.cookie) h.cookie = b.cookie;
      if (body !== undefined) h['content-type'] = 'application/json';
      const res = await fetch(url, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
      const set = res.headers.get('set-cookie');
      if (set) {
        const [pair] = set.split(';');
        b.cookie = pair!.endsWith('=') ? undefined : pair;
      }
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    },
  };
  return b;
}

const CSRF = { 'x-assay-csrf': '1' };

async function invitedUser(t: Tenant, role: 'owner' | 'member' | 'viewer') {
  const email = `app-${randomBytes(4).toString('hex')}@example.test`;
  const userId = (await admin.rpc.createUser({ email, name: `App ${role}` })).id;
  await admin.rpc.addMember({ orgId: t.orgId, userId, role: { owner: Role.OWNER, member: Role.MEMBER, viewer: Role.VIEWER }[role] });
  const invitation = await admin.rpc.createInvitation({ userId });
  const token = new URL(invitation.url).hash.replace(/^#token=/, '');
  return { email, userId, invitation, token };
}

/**
 * The gateway also limits sign-in attempts per client address (50 per 15 minutes), and every test file signs in
 * from 127.0.0.1 through the one shared gateway and Redis: in a full run the address's bucket could be used up
 * before this file's per-account tests, which then saw 429 too early. Each test here starts with it empty.
 */
beforeEach(async () => {
  const redis = new Redis(testSystem().infra.REDIS_URL);
  try {
    await redis.del('assay:login:ip:127.0.0.1');
  } finally {
    redis.disconnect();
  }
});

let t: Tenant;
beforeAll(async () => {
  t = await admin.tenant('owner');
});

describe('invitations and sign-in', () => {
  it('an invitation link (fragment, valid 7 days) lets the user choose a password and signs them in, once', async () => {
    const u = await invitedUser(t, 'member');
    expect(u.invitation.url).toMatch(/\/accept-invitation#token=[A-Za-z0-9_-]{43}$/);
    const days = (Number(u.invitation.expiresAt!.seconds) * 1000 - Date.now()) / 86400000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    const b = browser();
    const tooShort = await b.call('POST', `${APP}/invitations/accept`, { token: u.token, password: 'short' });
    expect(tooShort.status).toBe(400);
    const res = await b.call('POST', `${APP}/invitations/accept`, { token: u.token, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.data.user).toEqual({ id: u.userId, email: u.email, name: 'App member' });
    expect(res.body.data.projects.map((p: { id: string }) => p.id)).toContain(t.projectId);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^assay_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/i); // served over http here; over https the cookie is Secure
    // used once
    const again = await browser().call('POST', `${APP}/invitations/accept`, { token: u.token, password: PASSWORD });
    expect(again.status).toBe(404);
  });

  it('signs in with e-mail and password; a wrong password and an unknown e-mail get the same 401', async () => {
    const u = await invitedUser(t, 'member');
    await browser().call('POST', `${APP}/invitations/accept`, { token: u.token, password: PASSWORD });
    const ok = await browser().call('POST', `${APP}/login`, { email: u.email.toUpperCase(), password: PASSWORD });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.id).toBe(u.userId);
    const wrong = await browser().call('POST', `${APP}/login`, { email: u.email, password: 'not the password at all' });
    const unknown = await browser().call('POST', `${APP}/login`, { email: `nobody-${u.email}`, password: 'not the password at all' });
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(unknown.body.error).toEqual(wrong.body.error);
    // invited but never accepted: the same answer too
    const pending = await invitedUser(t, 'member');
    expect((await browser().call('POST', `${APP}/login`, { email: pending.email, password: PASSWORD })).body.error).toEqual(
      wrong.body.error,
    );
  });

  it('limits sign-in attempts per account (10 per 15 minutes): the 11th is 429 with Retry-After, even with the right password', async () => {
    const u = await invitedUser(t, 'viewer');
    await browser().call('POST', `${APP}/invitations/accept`, { token: u.token, password: PASSWORD });
    for (let i = 0; i < 10; i++)
      expect((await browser().call('POST', `${APP}/login`, { email: u.email, password: `wrong ${i} xxxxxxxx` })).status).toBe(401);
    const limited = await browser().call('POST', `${APP}/login`, { email: u.email, password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    // The message says the same wait, for the sign-in page (which shows the message, not the header).
    expect(limited.body.error.message).toBe(`Too many sign-in attempts; try again in ${Math.ceil(retryAfter / 60)} minutes`);
  });
});

describe('the session on the public API', () => {
  it('acts as a token of its user: their projects, their live role; other projects 404', async () => {
    const member = await invitedUser(t, 'member');
    const b = browser();
    await b.call('POST', `${APP}/invitations/accept`, { token: member.token, password: PASSWORD });
    expect((await b.call('GET', `/${t.projectId}/test-runs`)).status).toBe(200);
    const other = await admin.tenant('owner');
    // The same 404, in words naming what the caller holds: a person's account, or an API token.
    const refused = await b.call('GET', `/${other.projectId}/test-runs`);
    expect([refused.status, refused.body]).toEqual([
      404,
      { success: false, error: { code: 'NOT_FOUND', message: 'Project not found or not accessible to your account' } },
    ]);
    const byToken = await testApi(t.token).get(`/${other.projectId}/test-runs`);
    expect([byToken.status, byToken.body]).toEqual([
      404,
      { success: false, error: { code: 'NOT_FOUND', message: 'Project not found or not accessible to this token' } },
    ]);
    const created = await b.call('POST', `/${t.projectId}/manual-test-suites`, { name: 'From the browser' }, CSRF);
    expect(created.status).toBe(201);
    expect(created.body.data.metadata.lastModifiedBy).toEqual({ name: 'App member', email: member.email });
    await admin.setRole(t.orgId, member.userId, 'viewer');
    expect((await b.call('POST', `/${t.projectId}/manual-test-suites`, { name: 'Now a viewer' }, CSRF)).status).toBe(403);
  });

  it("token-info describes the session as the PAT it acts as: every project of the user's organizations", async () => {
    const member = await invitedUser(t, 'member');
    const b = browser();
    await b.call('POST', `${APP}/invitations/accept`, { token: member.token, password: PASSWORD });
    const ids = new Set<string>();
    for (const path of ['/token-info', `/${t.projectId}/token-info`]) {
      const res = await b.call('GET', path);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.body.data).toMatchObject({
        id: expect.stringMatching(/^session:[0-9a-f]+$/),
        type: 'pat',
        scopes: [{ orgId: t.orgId, projects: '*' }],
        projectName: null,
        expiresAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        lastUsed: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      });
      ids.add(res.body.data.id);
    }
    expect(ids.size).toBe(1); // one session, one id
    // The organization has one project: the project-less form names it, as for a wildcard PAT.
    expect((await b.call('GET', '/token-info')).body.data.project).toEqual({ id: t.projectId, name: 'Test project' });
    const other = await admin.tenant('owner');
    expect((await b.call('GET', `/${other.projectId}/token-info`)).status).toBe(404);
  });

  it('a cookie-signed write without the CSRF header is 403 and writes nothing; reads need no header', async () => {
    const u = await invitedUser(t, 'member');
    const b = browser();
    await b.call('POST', `${APP}/invitations/accept`, { token: u.token, password: PASSWORD });
    const before = (await b.call('GET', `/${t.projectId}/manual-test-suites?limit=100`)).body.pagination.total;
    const forged = await b.call('POST', `/${t.projectId}/manual-test-suites`, { name: 'Cross-site' });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe('FORBIDDEN');
    expect((await b.call('GET', `/${t.projectId}/manual-test-suites?limit=100`)).body.pagination.total).toBe(before);
  });

  it('sign-out holds on the next request; sign-out everywhere ends every session of the account', async () => {
    const u = await invitedUser(t, 'member');
    const first = browser();
    await first.call('POST', `${APP}/invitations/accept`, { token: u.token, password: PASSWORD });
    const second = browser();
    await second.call('POST', `${APP}/login`, { email: u.email, password: PASSWORD });
    const third = browser();
    await third.call('POST', `${APP}/login`, { email: u.email, password: PASSWORD });
    const firstCookie = first.cookie;
    const out = await first.call('POST', `${APP}/logout`, undefined, CSRF);
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^assay_session=;/);
    first.cookie = firstCookie; // a copy of the old cookie is worth nothing
    expect((await first.call('GET', `${APP}/me`)).status).toBe(401);
    expect((await second.call('GET', `${APP}/me`)).status).toBe(200);
    expect((await second.call('POST', `${APP}/logout-everywhere`, undefined, CSRF)).status).toBe(200);
    expect((await third.call('GET', `${APP}/me`)).status).toBe(401);
    expect((await third.call('GET', `/${t.projectId}/test-runs`)).status).toBe(401);
  });

  it('the app API needs a session: a bearer token is not one', async () => {
    expect((await testApi(t.token).get(`${APP}/me`)).status).toBe(401);
  });
});

describe('personal access tokens from the account', () => {
  it('creates (secret once, expiry 30/60/90/180 days, projects), lists, rotates and revokes; the token works meanwhile', async () => {
    const u = await invitedUser(t, 'member');
    const b = browser();
    await b.call('POST', `${APP}/invitations/accept`, { token: u.token, password: PASSWORD });
    expect((await b.call('POST', `${APP}/tokens`, { name: 'CI', expiresInDays: 45, projects: ['*'] }, CSRF)).status).toBe(400);
    const other = await admin.tenant('owner');
    const foreign = await b.call('POST', `${APP}/tokens`, { name: 'CI', expiresInDays: 30, projects: [other.projectId] }, CSRF);
    expect(foreign.status).toBe(400);
    const created = await b.call('POST', `${APP}/tokens`, { name: 'CI', expiresInDays: 90, projects: [t.projectId] }, CSRF);
    expect(created.status).toBe(201);
    const { token, secret } = created.body.data;
    expect(secret).toMatch(/^svc_pat_[0-9a-f]{72}$/);
    expect(token).toMatchObject({ name: 'CI', projects: [{ id: t.projectId }], revoked: false, lastUsedAt: null });
    expect((new Date(token.expiresAt).getTime() - Date.now()) / 86400000).toBeCloseTo(90, 0);
    const list = await b.call('GET', `${APP}/tokens`);
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([token.id]);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect((await testApi(secret).get(`/${t.projectId}/token-info`)).status).toBe(200);
    const rotated = await b.call('POST', `${APP}/tokens/${token.id}/rotate`, undefined, CSRF);
    expect(rotated.status).toBe(200);
    expect((await testApi(secret).get(`/${t.projectId}/token-info`)).body.error.code).toBe('TOKEN_REVOKED');
    expect((await testApi(rotated.body.data.secret).get(`/${t.projectId}/token-info`)).status).toBe(200);
    expect((await b.call('DELETE', `${APP}/tokens/${token.id}`, undefined, CSRF)).status).toBe(200);
    expect((await testApi(rotated.body.data.secret).get(`/${t.projectId}/token-info`)).body.error.code).toBe('TOKEN_REVOKED');
    // another user's token is not found, whatever it is
    const stranger = await invitedUser(t, 'member');
    const sb = browser();
    await sb.call('POST', `${APP}/invitations/accept`, { token: stranger.token, password: PASSWORD });
    expect((await sb.call('DELETE', `${APP}/tokens/${token.id}`, undefined, CSRF)).status).toBe(404);
  });
});

describe('sign-in links', () => {
  it('a sign-in link signs the user in directly, once', async () => {
    const u = await invitedUser(t, 'viewer');
    const link = await admin.rpc.createSignInLink({ userId: u.userId });
    expect(link.url).toMatch(/\/sign-in#token=/);
    const token = new URL(link.url).hash.replace(/^#token=/, '');
    const b = browser();
    expect((await b.call('POST', `${APP}/sign-in-links/use`, { token })).status).toBe(200);
    expect((await b.call('GET', `${APP}/me`)).body.data.user.id).toBe(u.userId);
    expect((await browser().call('POST', `${APP}/sign-in-links/use`, { token })).status).toBe(404);
  });
});

describe('retention of ended sessions and spent links', () => {
  // A system of its own whose identity keeps what ended for 10 s and sweeps every second.
  const RETENTION_MS = 10_000;
  let sys: PrivateSystem;
  let db: Pool;
  beforeAll(async () => {
    sys = await startPrivateSystem({
      name: 'session-retention',
      envFor: { identity: { SESSION_RETENTION_DAYS: String(RETENTION_MS / 86_400_000), SESSION_SWEEP_INTERVAL_SECONDS: '1' } },
    });
    db = new Pool({ connectionString: sys.system.infra.DATABASE_URL, max: 1 });
  }, 120000);
  afterAll(async () => {
    await db?.end();
    await sys?.stop();
  });

  const sessionIds = async () => (await db.query(`SELECT id FROM identity.sessions ORDER BY id`)).rows.map((r) => r.id as string);
  const linkCount = async () => Number((await db.query(`SELECT count(*) AS n FROM identity.invitations`)).rows[0].n);
  const linkToken = (url: string) => new URL(url).hash.replace(/^#token=/, '');

  it('deletes a signed-out session and the used sign-in links no sooner than the retention; a live session and a valid link stay and work', async () => {
    const owner = await sys.admin.tenant('owner');
    const link = async () => linkToken((await sys.admin.rpc.createSignInLink({ userId: owner.userId })).url);
    const leaving = browser(sys.system.gatewayUrl);
    const staying = browser(sys.system.gatewayUrl);
    expect((await leaving.call('POST', `${APP}/sign-in-links/use`, { token: await link() })).status).toBe(200);
    expect((await staying.call('POST', `${APP}/sign-in-links/use`, { token: await link() })).status).toBe(200);
    const unused = await link();
    const before = await sessionIds();
    expect(before).toHaveLength(2);
    expect(await linkCount()).toBe(3);

    const leavingCookie = leaving.cookie;
    expect((await leaving.call('POST', `${APP}/logout`, undefined, CSRF)).status).toBe(200);
    const signedOutAt = Date.now();
    leaving.cookie = leavingCookie;
    const signedOutId = (await db.query(`SELECT id FROM identity.sessions WHERE revoked_at IS NOT NULL`)).rows[0].id as string;

    // Gone once the retention is over, with the two links used before the sign-out (one sweep deletes sessions, then
    // links); meanwhile the live session is used and the ended one refused.
    const swept = async () =>
      Number(
        /^identity_sessions_swept_total(?:\{[^}]*\})? (\d+)/m.exec(
          await (await fetch(`http://127.0.0.1:${sys.system.ports.services.identity!.httpPort}/metrics`)).text(),
        )?.[1] ?? 0,
      );
    const deadline = Date.now() + 60_000;
    let seenGoneAt: number | undefined;
    let lastSeenAt = signedOutAt;
    while ((await swept()) < 3) {
      if ((await sessionIds()).includes(signedOutId)) lastSeenAt = Date.now();
      else seenGoneAt ??= Date.now();
      if (Date.now() > deadline) throw new Error('the signed-out session and the used links were not deleted within 60 s');
      expect((await staying.call('GET', `${APP}/me`)).status).toBe(200);
      expect((await leaving.call('GET', `${APP}/me`)).status).toBe(401);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // Not before the retention was over: still there well into it (polled every half second), gone after it.
    expect(lastSeenAt - signedOutAt).toBeGreaterThanOrEqual(RETENTION_MS / 2);
    expect((seenGoneAt ?? Date.now()) - signedOutAt).toBeGreaterThanOrEqual(RETENTION_MS);
    expect(await sessionIds()).toEqual(before.filter((id) => id !== signedOutId));
    // The unused link, valid for hours, stays.
    expect(await linkCount()).toBe(1);

    // The ended cookie gets the same answer as before; the live session and the unused link still work.
    expect((await leaving.call('GET', `${APP}/me`)).status).toBe(401);
    expect((await staying.call('GET', `${APP}/me`)).body.data.user.id).toBe(owner.userId);
    const late = browser(sys.system.gatewayUrl);
    expect((await late.call('POST', `${APP}/sign-in-links/use`, { token: unused })).status).toBe(200);
    expect((await late.call('GET', `/${owner.projectId}/test-runs`)).status).toBe(200);
    // Nothing else was deleted meanwhile.
    expect(await swept()).toBe(3);
  });
});
