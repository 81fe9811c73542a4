/**
 * AuthService: the gateway's questions about a request's token. Each answer carries the generations its facts
 * were read at, in the same statement, so the gateway's cache can tell when it has become stale.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { AuthService } from '@assay/proto/assay/identity/v1/identity_pb';
import { validation } from '@assay/errors';
import { ID_PATTERN } from '@assay/db';
import type { Wiring } from '../wiring';
import { roleEnum, tokenTypeEnum } from '../domain/roles';
import { findToken, findTokenBySecretHash, scopeProjects, touchLastUsed, type ScopeProject, type TokenRecord } from '../store/tokens';
import { projectAccess, projectsOfOrgs, userProjectAccess } from '../store/projects';
import { liveSession, liveSessionById } from '../store/sessions';
import { userAuthGeneration } from '../store/users';
import { sessionMessage } from './accounts';
import { userOrgIds } from '../store/organizations';

const ts = (d: Date | null) => (d ? timestampFromDate(d) : undefined);

function tokenMessage(t: TokenRecord) {
  return {
    id: t.id,
    type: tokenTypeEnum(t.type),
    userId: t.userId ?? '',
    projectId: t.projectId ?? '',
    allProjects: t.allProjects,
    expiresAt: ts(t.expiresAt),
    createdAt: ts(t.createdAt),
    lastUsedAt: ts(t.lastUsedAt),
    revoked: t.revoked,
  };
}

const generationsOf = (t: TokenRecord) => ({ token: BigInt(t.generation), user: BigInt(t.userGeneration) });

function groupByOrg(projects: ScopeProject[]) {
  const byOrg = new Map<string, { id: string; name: string }[]>();
  for (const p of projects) {
    const list = byOrg.get(p.orgId) ?? [];
    list.push({ id: p.projectId, name: p.projectName });
    byOrg.set(p.orgId, list);
  }
  return [...byOrg].map(([orgId, projects]) => ({ orgId, allProjects: false, projects }));
}

export function authHandlers(w: Wiring): ServiceImpl<typeof AuthService> {
  const { pool, logger } = w;

  /** A live web app session as the PAT it acts as: its user's, over every project of their organizations. */
  const sessionAsToken = async (sessionId: string): Promise<TokenRecord | undefined> => {
    const s = ID_PATTERN.test(sessionId) ? await liveSessionById(pool, sessionId) : undefined;
    if (!s) return undefined;
    const { createdAt, expiresAt, lastSeenAt: lastUsedAt, userId, userGeneration } = s;
    const common = { projectId: null, allProjects: true, revoked: false, generation: 0 };
    return { id: `session:${s.id}`, type: 'pat', userId, createdAt, expiresAt, lastUsedAt, userGeneration, ...common };
  };

  return {
    async authenticate(req) {
      if (req.secretHash.length !== 32) throw validation('secretHash must be a SHA-256 digest (32 bytes)');
      const token = await findTokenBySecretHash(pool, Buffer.from(req.secretHash));
      if (!token) return { found: false };
      // Use is recorded at most once a minute, off the request's path.
      if (!token.revoked) void touchLastUsed(pool, token.id).catch((err) => logger.warn({ err }, 'could not record token use'));
      return { found: true, token: tokenMessage(token), generations: generationsOf(token) };
    },

    async getSession(req) {
      if (req.sessionHash.length !== 32) throw validation('sessionHash must be a SHA-256 digest (32 bytes)');
      const session = await liveSession(pool, Buffer.from(req.sessionHash), w.config.SESSION_IDLE_HOURS);
      if (!session) return { found: false };
      return { found: true, session: sessionMessage(session), generations: { token: 0n, user: BigInt(session.userGeneration) } };
    },

    async getProjectAccess(req) {
      if (req.userId) {
        // A web app session: every project of the user's organizations, with the live role.
        if (!ID_PATTERN.test(req.userId) || !ID_PATTERN.test(req.projectId)) return { found: false };
        const user = await userAuthGeneration(pool, req.userId);
        if (user === undefined) return { found: false };
        const access = await userProjectAccess(pool, req.userId, req.projectId);
        const generations = { token: 0n, user: BigInt(user) };
        if (!access) return { found: false, generations };
        return {
          found: true,
          access: { ...access, role: roleEnum(access.role), userName: access.userName ?? '', userEmail: access.userEmail ?? '' },
          generations,
        };
      }
      if (!ID_PATTERN.test(req.tokenId) || !ID_PATTERN.test(req.projectId)) return { found: false };
      const token = await findToken(pool, req.tokenId);
      if (!token) return { found: false };
      const access = await projectAccess(pool, token, req.projectId);
      if (!access) return { found: false, generations: generationsOf(token) };
      return {
        found: true,
        access: { ...access, role: roleEnum(access.role), userName: access.userName ?? '', userEmail: access.userEmail ?? '' },
        generations: generationsOf(token),
      };
    },

    async getTokenInfo(req) {
      const token = req.sessionId ? await sessionAsToken(req.sessionId) : await findToken(pool, req.tokenId);
      if (!token) throw validation(req.sessionId ? 'unknown session' : 'unknown token');
      const wildcard = token.type === 'pat' && token.allProjects;
      let scopes: { orgId: string; allProjects: boolean; projects: { id: string; name: string }[] }[];
      let covered: ScopeProject[];
      if (wildcard) {
        const orgIds = await userOrgIds(pool, token.userId!);
        scopes = orgIds.map((orgId) => ({ orgId, allProjects: true, projects: [] }));
        // Two are enough to tell "exactly one" from "more".
        covered = await projectsOfOrgs(pool, orgIds, 2);
      } else {
        covered = await scopeProjects(pool, token);
        scopes = groupByOrg(covered);
      }
      // The latest recorded use (minute resolution), which includes this request: read fresh, not from a cache. A
      // session's is recorded as it is seen (liveSession).
      const lastUsedAt = req.sessionId ? token.lastUsedAt : ((await touchLastUsed(pool, token.id)) ?? token.lastUsedAt);
      const pathProject = req.projectId && !wildcard ? covered.find((p) => p.projectId === req.projectId) : undefined;
      const only = !req.projectId && covered.length === 1 ? covered[0] : undefined;
      return {
        token: { ...tokenMessage(token), lastUsedAt: ts(lastUsedAt) },
        permissions: token.type === 'api_key' ? ['read', 'ingest'] : [],
        scopes,
        projectName: pathProject?.projectName ?? '',
        onlyProject: only ? { id: only.projectId, name: only.projectName } : undefined,
      };
    },
  };
}
