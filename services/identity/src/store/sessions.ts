/** Web app sessions and invitations (SQL on the `identity` schema); only SHA-256 of their secrets is stored. */
import { newId, type Queryable, type Row } from '@assay/db';

export interface SessionRow {
  id: string;
  userId: string;
  userName: string;
  userEmail: string;
  createdAt: Date;
  expiresAt: Date;
  lastSeenAt: Date;
  userGeneration: number;
}

const toSession = (r: Row): SessionRow => ({
  id: r.id,
  userId: r.user_id,
  userName: r.name,
  userEmail: r.email,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastSeenAt: r.last_seen_at,
  userGeneration: Number(r.auth_generation),
});

export async function createSession(
  q: Queryable,
  s: { secretHash: Buffer; userId: string; idleHours: number; maxDays: number; userAgent: string; ip: string },
): Promise<SessionRow> {
  const { rows } = await q.query(
    `WITH s AS (
       INSERT INTO sessions (id, secret_hash, user_id, idle_expires_at, expires_at, user_agent, ip)
       VALUES ($1, $2, $3, now() + make_interval(hours => $4), now() + make_interval(days => $5), $6, $7)
       RETURNING *)
     SELECT s.*, u.name, u.email, u.auth_generation FROM s JOIN users u ON u.id = s.user_id`,
    [newId(), s.secretHash, s.userId, s.idleHours, s.maxDays, s.userAgent.slice(0, 512) || null, s.ip.slice(0, 64) || null],
  );
  return toSession(rows[0]);
}

/** Live sessions (not ended, not idle past their expiry, not past their absolute expiry), with their users. */
const SELECT_LIVE = `SELECT s.*, u.name, u.email, u.auth_generation FROM sessions s JOIN users u ON u.id = s.user_id
  WHERE s.revoked_at IS NULL AND s.expires_at > now() AND s.idle_expires_at > now()`;

/** A live session by the hash of its cookie; its idle expiry moves on. */
export async function liveSession(q: Queryable, secretHash: Buffer, idleHours: number): Promise<SessionRow | undefined> {
  const { rows } = await q.query(`${SELECT_LIVE} AND s.secret_hash = $1`, [secretHash]);
  const session = rows[0] ? toSession(rows[0]) : undefined;
  // Use moves the idle expiry, written at most once a minute (a write per request would cost more than it tells).
  if (session && session.lastSeenAt.getTime() < Date.now() - 60_000) {
    await q.query(
      `UPDATE sessions SET last_seen_at = now(), idle_expires_at = least(expires_at, now() + make_interval(hours => $2)) WHERE id = $1`,
      [session.id, idleHours],
    );
  }
  return session;
}

/** A live session by its id (no idle expiry moved: reading it is not a use). */
export async function liveSessionById(q: Queryable, id: string): Promise<SessionRow | undefined> {
  const { rows } = await q.query(`${SELECT_LIVE} AND s.id = $1`, [id]);
  return rows[0] ? toSession(rows[0]) : undefined;
}

export async function endSession(q: Queryable, secretHash: Buffer): Promise<void> {
  await q.query(`UPDATE sessions SET revoked_at = now() WHERE secret_hash = $1 AND revoked_at IS NULL`, [secretHash]);
}

export async function endSessionsOfUser(q: Queryable, userId: string): Promise<void> {
  await q.query(`UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, [userId]);
}

export type LinkPurpose = 'invitation' | 'sign-in';

export async function createLink(q: Queryable, userId: string, purpose: LinkPurpose, tokenHash: Buffer, hours: number): Promise<Date> {
  const { rows } = await q.query(
    `INSERT INTO invitations (token_hash, user_id, purpose, expires_at) VALUES ($1, $2, $3, now() + make_interval(hours => $4))
     RETURNING expires_at`,
    [tokenHash, userId, purpose, hours],
  );
  return rows[0].expires_at;
}

/** Marks a valid link of that purpose used (once) and returns its user; undefined if unknown, used or expired. */
export async function useLink(q: Queryable, purpose: LinkPurpose, tokenHash: Buffer): Promise<string | undefined> {
  const { rows } = await q.query(
    `UPDATE invitations SET used_at = now()
      WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
    [tokenHash, purpose],
  );
  return rows[0]?.user_id;
}

/*
 * Retention. Sessions and links are written and checked against the database's clock (`now()` above), so their
 * retention is reckoned by it too. Each statement deletes at most `limit` rows: a backlog goes in short
 * transactions. A session ended at the first of its sign-out, its idle expiry (which stops moving once passed)
 * and its absolute expiry; a link at its use or its expiry.
 */

/** Deletes up to `limit` sessions that ended more than `retentionSeconds` ago; returns how many. */
export async function deleteEndedSessions(q: Queryable, retentionSeconds: number, limit: number): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM sessions WHERE id IN (
       SELECT id FROM sessions
        WHERE least(revoked_at, idle_expires_at, expires_at) < now() - make_interval(secs => $1)
        LIMIT $2)`,
    [retentionSeconds, limit],
  );
  return rowCount ?? 0;
}

/** Deletes up to `limit` invitations and sign-in links used or expired more than `retentionSeconds` ago; returns how many. */
export async function deleteSpentLinks(q: Queryable, retentionSeconds: number, limit: number): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM invitations WHERE token_hash IN (
       SELECT token_hash FROM invitations
        WHERE least(used_at, expires_at) < now() - make_interval(secs => $1)
        LIMIT $2)`,
    [retentionSeconds, limit],
  );
  return rowCount ?? 0;
}
