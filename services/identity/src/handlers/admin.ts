/**
 * AdminService: what the admin CLI does (organizations, users, memberships, projects, tokens). Only the
 * admin credential may call it (the service kit refuses every other caller). Revocations, rotations and
 * role changes raise the auth-cache generations once committed, so the gateway stops honouring the old
 * facts on the very next request. The lists answer bounded keyset pages (the service kit's idPage) and never a
 * token's secret nor its hash.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { AdminService } from '@assay/proto/assay/identity/v1/identity_pb';
import { withTransaction } from '@assay/db';
import { AppError, validation } from '@assay/errors';
import { idPage, idPageOf } from '@assay/service-kit';
import { issueSecret } from '@assay/contracts/identity/tokens';
import type { Wiring } from '../wiring';
import { requireEmail, requireId, requireText } from '../domain/input';
import { roleEnum, roleOf, tokenTypeEnum } from '../domain/roles';
import { createOrg, listMembers, listOrgs, orgExists, setMemberRole, upsertMember } from '../store/organizations';
import { createUser, listUsers, userExists } from '../store/users';
import { createProject, getProject, listProjects } from '../store/projects';
import { createToken, listTokens } from '../store/tokens';
import { issuePat, revoke, rotate } from '../domain/tokens';
import { link } from '../domain/invitations';

const ts = (d: Date | null) => (d ? timestampFromDate(d) : undefined);

export function adminHandlers(w: Wiring): ServiceImpl<typeof AdminService> {
  const { pool, generations } = w;
  return {
    async createOrg(req) {
      return { id: await createOrg(pool, requireText(req.name, 'name')) };
    },
    async createUser(req) {
      return { id: await createUser(pool, requireEmail(req.email), requireText(req.name, 'name')) };
    },
    async addMember(req) {
      const role = roleOf(req.role);
      if (!(await orgExists(pool, requireId(req.orgId, 'org')))) throw new AppError('NOT_FOUND', 'unknown organization');
      if (!(await userExists(pool, requireId(req.userId, 'user')))) throw new AppError('NOT_FOUND', 'unknown user');
      await generations.user(req.userId, await upsertMember(pool, req.orgId, req.userId, role));
      return {};
    },
    async setMemberRole(req) {
      const role = roleOf(req.role);
      const generation = await setMemberRole(pool, requireId(req.orgId, 'org'), requireId(req.userId, 'user'), role);
      if (generation === undefined) throw new AppError('NOT_FOUND', 'the user is not a member of that organization');
      await generations.user(req.userId, generation);
      return {};
    },
    async createProject(req) {
      if (!(await orgExists(pool, requireId(req.orgId, 'org')))) throw new AppError('NOT_FOUND', 'unknown organization');
      return { id: await createProject(pool, req.orgId, requireText(req.name, 'name')) };
    },
    async createToken(req) {
      const isApiKey = req.projectId !== '';
      if (isApiKey === (req.userId !== '')) throw validation('give exactly one of user or project');
      if (req.expiresInSeconds < 0n) throw validation('expiry must be positive');
      const expiresAt = req.expiresInSeconds > 0n ? new Date(w.clock().getTime() + Number(req.expiresInSeconds) * 1000) : null;
      const secret = issueSecret();
      const name = req.name.trim() || (isApiKey ? 'api key' : 'personal access token');
      if (isApiKey) {
        if (!(await getProject(pool, requireId(req.projectId, 'project')))) throw new AppError('NOT_FOUND', 'unknown project');
        const id = await withTransaction(pool, (c) =>
          createToken(c, {
            type: 'api_key',
            userId: null,
            projectId: req.projectId,
            name,
            allProjects: false,
            projectIds: [],
            expiresAt,
            secretHash: secret.hash,
          }),
        );
        return { id, token: secret.token, uploadKey: secret.uploadKey };
      }
      if (!(await userExists(pool, requireId(req.userId, 'user')))) throw new AppError('NOT_FOUND', 'unknown user');
      const issued = await issuePat(w, {
        userId: req.userId,
        name,
        projectIds: req.projectIds,
        expiresInSeconds: Number(req.expiresInSeconds),
      });
      return { id: issued.id, token: issued.token, uploadKey: '' };
    },
    async revokeToken(req) {
      await revoke(w, req.id);
      return {};
    },
    async rotateToken(req) {
      const rotated = await rotate(w, req.id);
      return { id: req.id, token: rotated.token, uploadKey: rotated.type === 'api_key' ? rotated.uploadKey : '' };
    },
    async createInvitation(req) {
      if (!(await userExists(pool, requireId(req.userId, 'user')))) throw new AppError('NOT_FOUND', 'unknown user');
      const invitation = await link(w, req.userId, 'invitation');
      return { token: invitation.token, url: invitation.url, expiresAt: timestampFromDate(invitation.expiresAt) };
    },
    async createSignInLink(req) {
      if (!(await userExists(pool, requireId(req.userId, 'user')))) throw new AppError('NOT_FOUND', 'unknown user');
      const signIn = await link(w, req.userId, 'sign-in');
      return { token: signIn.token, url: signIn.url, expiresAt: timestampFromDate(signIn.expiresAt) };
    },

    async listOrganizations(req) {
      const page = idPage(req);
      const { rows, nextPageToken } = idPageOf(await listOrgs(pool, page), page, (o) => o.id);
      return { organizations: rows.map((o) => ({ id: o.id, name: o.name, createdAt: ts(o.createdAt) })), nextPageToken };
    },
    async listUsers(req) {
      const page = idPage(req);
      const { rows, nextPageToken } = idPageOf(await listUsers(pool, page), page, (u) => u.id);
      return { users: rows.map((u) => ({ id: u.id, email: u.email, name: u.name, createdAt: ts(u.createdAt) })), nextPageToken };
    },
    async listMembers(req) {
      const page = idPage(req);
      if (!(await orgExists(pool, requireId(req.orgId, 'org')))) throw new AppError('NOT_FOUND', 'unknown organization');
      const { rows, nextPageToken } = idPageOf(await listMembers(pool, req.orgId, page), page, (m) => m.userId);
      return {
        members: rows.map((m) => ({ userId: m.userId, email: m.email, name: m.name, role: roleEnum(m.role), joinedAt: ts(m.joinedAt) })),
        nextPageToken,
      };
    },
    async listProjects(req) {
      const page = idPage(req);
      if (req.orgId !== '' && !(await orgExists(pool, requireId(req.orgId, 'org'))))
        throw new AppError('NOT_FOUND', 'unknown organization');
      const { rows, nextPageToken } = idPageOf(await listProjects(pool, req.orgId || undefined, page), page, (p) => p.id);
      return { projects: rows.map((p) => ({ id: p.id, orgId: p.orgId, name: p.name, createdAt: ts(p.createdAt) })), nextPageToken };
    },
    async listTokens(req) {
      const page = idPage(req);
      if ((req.userId === '') === (req.projectId === '')) throw validation('give exactly one of user or project');
      if (req.userId !== '' && !(await userExists(pool, requireId(req.userId, 'user')))) throw new AppError('NOT_FOUND', 'unknown user');
      if (req.projectId !== '' && !(await getProject(pool, requireId(req.projectId, 'project'))))
        throw new AppError('NOT_FOUND', 'unknown project');
      const owner = req.userId !== '' ? { userId: req.userId } : { projectId: req.projectId };
      const { rows, nextPageToken } = idPageOf(await listTokens(pool, owner, page), page, (t) => t.id);
      return {
        tokens: rows.map((t) => ({
          id: t.id,
          type: tokenTypeEnum(t.type),
          name: t.name,
          userId: t.userId ?? '',
          projectId: t.projectId ?? '',
          allProjects: t.allProjects,
          projectIds: t.projectIds,
          createdAt: ts(t.createdAt),
          expiresAt: ts(t.expiresAt),
          lastUsedAt: ts(t.lastUsedAt),
          revoked: t.revoked,
        })),
        nextPageToken,
      };
    },
  };
}
