/**
 * Invitations and sessions: the secrets behind a link and a cookie. Both are 32 random bytes (base64url); only
 * their SHA-256 is stored, so the database alone cannot sign anyone in.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '@assay/db';
import type { Wiring } from '../wiring';
import { createLink, createSession, type LinkPurpose, type SessionRow } from '../store/sessions';

/** How long a link stays valid: an invitation 7 days (CONTRACT §10), a sign-in link 24 hours. */
export const LINK_HOURS: Record<LinkPurpose, number> = { invitation: 7 * 24, 'sign-in': 24 };
const LINK_PAGE: Record<LinkPurpose, string> = { invitation: 'accept-invitation', 'sign-in': 'sign-in' };

export const secretHash = (secret: string | Uint8Array) => createHash('sha256').update(secret).digest();
const newSecret = () => randomBytes(32).toString('base64url');

/** A one-time link for the user; the token is in the URL's fragment, which browsers never send to a server. */
export async function link(w: Wiring, userId: string, purpose: LinkPurpose): Promise<{ token: string; url: string; expiresAt: Date }> {
  const token = newSecret();
  const expiresAt = await createLink(w.pool, userId, purpose, secretHash(token), LINK_HOURS[purpose]);
  const url = `${w.config.PUBLIC_UI_URL.replace(/\/+$/, '')}/${LINK_PAGE[purpose]}#token=${token}`;
  return { token, url, expiresAt };
}

/** A new session of the user: the cookie's secret (returned once) and the session. */
export async function openSession(
  w: Wiring,
  q: Queryable,
  userId: string,
  client: { userAgent: string; ip: string },
): Promise<{ sessionId: string; session: SessionRow }> {
  const sessionId = newSecret();
  const session = await createSession(q, {
    secretHash: secretHash(sessionId),
    userId,
    idleHours: w.config.SESSION_IDLE_HOURS,
    maxDays: w.config.SESSION_MAX_DAYS,
    ...client,
  });
  return { sessionId, session };
}
