/**
 * Retention of web app sessions and links (workers/sweeper.ts `sweepOnce`): sessions that ended (signed out, idle,
 * past their absolute expiry) and invitations and sign-in links used or expired are deleted once they ended more
 * than the retention ago, in bounded statements; live sessions, unused valid links and what ended within the
 * retention stay, and still work. Sessions and links are made through AccountService and AdminService, then aged.
 */
import { createHash } from 'node:crypto';
import { AccountService } from '@assay/proto/assay/identity/v1/identity_pb';
import { formatCallers } from '@assay/service-kit';
import { inMemoryClient } from '@assay/testkit';
import { loadIdentityConfig } from '../../src/config';
import { routes } from '../../src/routes';
import { sweepOnce } from '../../src/workers/sweeper';
import { identityUnit, type IdentityUnit } from './fixture';

let u: IdentityUnit;
let account: ReturnType<typeof inMemoryClient<typeof AccountService>>;
const hash = (s: string) => createHash('sha256').update(s).digest();
const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');

beforeAll(async () => {
  u = await identityUnit('identity-retention');
  account = inMemoryClient(AccountService, (r) => routes(r, u.w));
});
afterAll(() => u.close());

/** A signed-in session of a new user (through a sign-in link), and its cookie. */
async function session() {
  const { userId } = await u.tenant();
  const link = await u.admin.createSignInLink({ userId });
  const signedIn = (await account.useSignInLink({ token: tokenOf(link.url) })).signedIn!;
  return { id: signedIn.session!.id, cookie: signedIn.sessionId, userId };
}

/** Sets a session's times relative to the database's now(), in hours (no `revoked`: not signed out). */
async function age(id: string, t: { revoked?: number | null; idle: number; expires: number }) {
  await u.db.pool.query(
    `UPDATE sessions SET revoked_at = now() + make_interval(hours => $2), idle_expires_at = now() + make_interval(hours => $3),
                         expires_at = now() + make_interval(hours => $4), created_at = now() - interval '90 days'
      WHERE id = $1`,
    [id, t.revoked ?? null, t.idle, t.expires],
  );
}

const DAYS = 24;
const sessionIds = async () => (await u.db.pool.query(`SELECT id FROM sessions`)).rows.map((r) => r.id as string).sort();
const linkCount = async () => Number((await u.db.pool.query(`SELECT count(*) AS n FROM invitations`)).rows[0].n);
const found = async (cookie: string) => (await u.auth.getSession({ sessionHash: hash(cookie) })).found;

beforeEach(async () => {
  await u.db.pool.query(`DELETE FROM sessions`);
  await u.db.pool.query(`DELETE FROM invitations`);
});

it('deletes sessions ended more than the retention ago, whatever ended them, and keeps live and recently ended ones', async () => {
  const live = await session();
  // Signed in 90 days ago (a SESSION_MAX_DAYS of a year), used yesterday: live, whatever its age.
  const longLived = await session();
  await age(longLived.id, { idle: 23, expires: 275 * DAYS });
  const signedOut = await session();
  await age(signedOut.id, { revoked: -31 * DAYS, idle: -31 * DAYS + 1, expires: 100 * DAYS });
  const idle = await session();
  await age(idle.id, { idle: -31 * DAYS, expires: 100 * DAYS });
  // Past its absolute expiry before its idle one (SESSION_IDLE_HOURS beyond SESSION_MAX_DAYS).
  const past = await session();
  await age(past.id, { idle: -29 * DAYS, expires: -32 * DAYS });
  const signedOutRecently = await session();
  await age(signedOutRecently.id, { revoked: -29 * DAYS, idle: 20 * DAYS, expires: 100 * DAYS });
  const idleRecently = await session();
  await age(idleRecently.id, { idle: -29 * DAYS, expires: 100 * DAYS });
  // The sign-in links above were used just now: kept for the retention too.
  expect(await linkCount()).toBe(7);

  // Two rows a statement: three sessions to delete take two.
  expect(await sweepOnce({ pool: u.db.pool, retentionDays: 30, rowsAtOnce: 2 })).toBe(3);
  expect(await sessionIds()).toEqual([live.id, longLived.id, signedOutRecently.id, idleRecently.id].sort());
  expect(await linkCount()).toBe(7);
  expect(await found(live.cookie)).toBe(true);
  expect(await found(longLived.cookie)).toBe(true);
  // Nothing more to do; the ended sessions kept are still refused.
  expect(await sweepOnce({ pool: u.db.pool, retentionDays: 30, rowsAtOnce: 2 })).toBe(0);
  expect(await found(signedOutRecently.cookie)).toBe(false);
  expect(await found(idleRecently.cookie)).toBe(false);
});

it('deletes invitations and sign-in links used or expired more than the retention ago; a valid unused link stays and works', async () => {
  const { userId } = await u.tenant();
  const link = async (kind: 'invitation' | 'sign-in') =>
    kind === 'invitation' ? (await u.admin.createInvitation({ userId })).url : (await u.admin.createSignInLink({ userId })).url;
  const setLink = (url: string, t: { used?: number; expires: number }) =>
    u.db.pool.query(
      `UPDATE invitations SET used_at = now() + make_interval(hours => $2), expires_at = now() + make_interval(hours => $3)
        WHERE token_hash = $1`,
      [hash(tokenOf(url)), t.used ?? null, t.expires],
    );
  const usedLongAgo = await link('sign-in');
  await setLink(usedLongAgo, { used: -31 * DAYS, expires: -30 * DAYS });
  const expiredLongAgo = await link('invitation');
  await setLink(expiredLongAgo, { expires: -31 * DAYS });
  const expiredUnusedLongAgo = await link('sign-in');
  await setLink(expiredUnusedLongAgo, { expires: -40 * DAYS });
  const usedRecently = await link('invitation');
  await setLink(usedRecently, { used: -29 * DAYS, expires: 100 * DAYS });
  const expiredRecently = await link('sign-in');
  await setLink(expiredRecently, { expires: -1 });
  const valid = await link('sign-in');

  expect(await sweepOnce({ pool: u.db.pool, retentionDays: 30, rowsAtOnce: 2 })).toBe(3);
  const left = (await u.db.pool.query(`SELECT token_hash FROM invitations`)).rows.map((r) => (r.token_hash as Buffer).toString('hex'));
  expect(left.sort()).toEqual([usedRecently, expiredRecently, valid].map((url) => hash(tokenOf(url)).toString('hex')).sort());
  expect((await account.useSignInLink({ token: tokenOf(valid) })).signedIn?.session?.userId).toBe(userId);
});

it('reckons a retention in fractions of a day', async () => {
  const older = await session();
  await age(older.id, { revoked: -13, idle: 10, expires: 100 });
  const younger = await session();
  await age(younger.id, { revoked: -11, idle: 10, expires: 100 });
  expect(await sweepOnce({ pool: u.db.pool, retentionDays: 0.5 })).toBe(1);
  expect(await sessionIds()).toEqual([younger.id]);
});

it('SESSION_RETENTION_DAYS defaults to 30 days and SESSION_SWEEP_INTERVAL_SECONDS to an hour; bad values are refused', () => {
  const base = { INTERNAL_AUTH_TOKEN: 'x'.repeat(32), INTERNAL_CALLERS: formatCallers({ gateway: 'g'.repeat(32) }) };
  const c = loadIdentityConfig(base);
  expect(c.SESSION_RETENTION_DAYS).toBe(30);
  expect(c.SESSION_SWEEP_INTERVAL_SECONDS).toBe(3600);
  expect(loadIdentityConfig({ ...base, SESSION_RETENTION_DAYS: '0.25' }).SESSION_RETENTION_DAYS).toBe(0.25);
  for (const days of ['0', '-1', 'a month', '3651'])
    expect(() => loadIdentityConfig({ ...base, SESSION_RETENTION_DAYS: days })).toThrow(/SESSION_RETENTION_DAYS/);
  for (const seconds of ['0', 'hourly', '86401', '1.5'])
    expect(() => loadIdentityConfig({ ...base, SESSION_SWEEP_INTERVAL_SECONDS: seconds })).toThrow(/SESSION_SWEEP_INTERVAL_SECONDS/);
});
