/**
 * AccountService: the web app's account operations, for the gateway. Sign-in answers the same for an unknown
 * e-mail and a wrong password, in the same time; an invitation is used once; tokens are the user's own (another
 * user's token id is NOT_FOUND, whatever it is).
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { CreateAccountTokenResponseSchema, type AccountService } from '@assay/proto/assay/identity/v1/identity_pb';
import { AppError, validation } from '@assay/errors';
import { ID_PATTERN, withTransaction, type Queryable } from '@assay/db';
import { withIdempotency } from '@assay/service-kit';
import type { Wiring } from '../wiring';
import { requireId, requireText } from '../domain/input';
import { checkNewPassword, hashPassword, verifyPassword } from '../domain/passwords';
import { openSession, secretHash } from '../domain/invitations';
import { roleEnum } from '../domain/roles';
import { issuePat, revoke, rotate } from '../domain/tokens';
import { findToken, tokensOfUser, type TokenSummaryRow } from '../store/tokens';
import { findUser, findUserByEmail, setPassword } from '../store/users';
import { endSession, endSessionsOfUser, useLink, type SessionRow } from '../store/sessions';
import { organizationsOf } from '../store/organizations';
import { allProjectsOfOrgs } from '../store/projects';

/** Spec §5.2: a token created in the settings expires after 30, 60, 90 or 180 days. */
export const TOKEN_EXPIRY_DAYS = [30, 60, 90, 180];

const ts = (d: Date | null) => (d ? timestampFromDate(d) : undefined);

export const sessionMessage = (s: SessionRow) => ({
  id: s.id,
  userId: s.userId,
  userName: s.userName,
  userEmail: s.userEmail,
  createdAt: ts(s.createdAt),
  expiresAt: ts(s.expiresAt),
});

const tokenSummary = (t: TokenSummaryRow) => ({
  id: t.id,
  name: t.name,
  allProjects: t.allProjects,
  projects: t.projects,
  createdAt: ts(t.createdAt),
  expiresAt: ts(t.expiresAt),
  lastUsedAt: ts(t.lastUsedAt),
  revoked: t.revoked,
});

export function accountHandlers(w: Wiring): ServiceImpl<typeof AccountService> {
  const { pool } = w;

  /** The user's own token, or NOT_FOUND (another user's token looks exactly like an unknown one). */
  async function ownToken(userId: string, tokenId: string) {
    const token = ID_PATTERN.test(tokenId) ? await findToken(pool, tokenId) : undefined;
    if (!token || token.userId !== userId || token.type !== 'pat') throw new AppError('NOT_FOUND', 'Token not found');
    return token;
  }

  async function summaryOf(userId: string, tokenId: string, q: Queryable = pool): Promise<TokenSummaryRow> {
    const found = (await tokensOfUser(q, userId)).find((t) => t.id === tokenId);
    if (!found) throw new AppError('NOT_FOUND', 'Token not found');
    return found;
  }

  return {
    async login(req) {
      const user = req.email.length <= 320 ? await findUserByEmail(pool, req.email.trim()) : undefined;
      if (!(await verifyPassword(user?.passwordHash ?? null, req.password)) || !user) return {};
      const { sessionId, session } = await openSession(w, pool, user.id, { userAgent: req.userAgent, ip: req.ip });
      w.logger.info({ userId: user.id, sessionId: session.id }, 'signed in');
      return { signedIn: { sessionId, session: sessionMessage(session) } };
    },

    async acceptInvitation(req) {
      const password = checkNewPassword(req.password);
      const passwordHash = await hashPassword(password);
      const opened = await withTransaction(pool, async (c) => {
        const userId = await useLink(c, 'invitation', secretHash(req.token));
        if (!userId) return undefined;
        await setPassword(c, userId, passwordHash);
        return openSession(w, c, userId, { userAgent: req.userAgent, ip: req.ip });
      });
      if (!opened) return {};
      w.logger.info({ userId: opened.session.userId }, 'invitation accepted');
      return { signedIn: { sessionId: opened.sessionId, session: sessionMessage(opened.session) } };
    },

    async useSignInLink(req) {
      const opened = await withTransaction(pool, async (c) => {
        const userId = await useLink(c, 'sign-in', secretHash(req.token));
        return userId ? openSession(w, c, userId, { userAgent: req.userAgent, ip: req.ip }) : undefined;
      });
      if (!opened) return {};
      w.logger.info({ userId: opened.session.userId }, 'signed in with a sign-in link');
      return { signedIn: { sessionId: opened.sessionId, session: sessionMessage(opened.session) } };
    },

    async logout(req) {
      await endSession(pool, Buffer.from(req.sessionHash));
      return {};
    },

    async logoutEverywhere(req) {
      await endSessionsOfUser(pool, requireId(req.userId, 'userId'));
      return {};
    },

    async getAccount(req) {
      const user = await findUser(pool, requireId(req.userId, 'userId'));
      if (!user) throw new AppError('NOT_FOUND', 'unknown user');
      const organizations = await organizationsOf(pool, user.id);
      const projects = await allProjectsOfOrgs(
        pool,
        organizations.map((o) => o.id),
      );
      return {
        userId: user.id,
        email: user.email,
        name: user.name,
        organizations: organizations.map((o) => ({ id: o.id, name: o.name, role: roleEnum(o.role) })),
        projects: projects.map((p) => ({ id: p.id, name: p.name, orgId: p.orgId, createdAt: ts(p.createdAt) })),
      };
    },

    async listAccountTokens(req) {
      return { tokens: (await tokensOfUser(pool, requireId(req.userId, 'userId'))).map(tokenSummary) };
    },

    async createAccountToken(req, ctx) {
      const userId = requireId(req.userId, 'userId');
      const name = requireText(req.name, 'body.name', 100);
      if (!TOKEN_EXPIRY_DAYS.includes(req.expiresInDays)) {
        throw validation(`expiresInDays must be one of ${TOKEN_EXPIRY_DAYS.join(', ')}`, [
          { path: 'body.expiresInDays', message: `must be one of ${TOKEN_EXPIRY_DAYS.join(', ')}` },
        ]);
      }
      // Only projects of the user's own organizations: a token cannot name what the user cannot see.
      const wildcard = req.projectIds.length === 0 || req.projectIds.includes('*');
      if (!wildcard) {
        const orgs = await organizationsOf(pool, userId);
        const visible = new Set(
          (
            await allProjectsOfOrgs(
              pool,
              orgs.map((o) => o.id),
            )
          ).map((p) => p.id),
        );
        const unknown = req.projectIds.filter((p) => !visible.has(p));
        if (unknown.length > 0)
          throw validation(
            'unknown project',
            unknown.map((p) => ({ path: 'body.projects', message: `unknown project ${p}` })),
          );
      }
      return withIdempotency(pool, ctx, CreateAccountTokenResponseSchema, async (c) => {
        const issued = await issuePat(w, { userId, name, projectIds: req.projectIds, expiresInSeconds: req.expiresInDays * 86400 }, c);
        return { token: tokenSummary(await summaryOf(userId, issued.id, c)), secret: issued.token };
      });
    },

    async rotateAccountToken(req) {
      const token = await ownToken(req.userId, req.tokenId);
      const rotated = await rotate(w, token.id);
      return { token: tokenSummary(await summaryOf(req.userId, token.id)), secret: rotated.token };
    },

    async revokeAccountToken(req) {
      const token = await ownToken(req.userId, req.tokenId);
      await revoke(w, token.id);
      return {};
    },
  };
}
