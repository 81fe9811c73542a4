/**
 * AdminService: what the admin CLI does (organizations, users, memberships, projects, tokens). Only the
 * admin credential may call it (the service kit refuses every other caller). Revocations, rotations and
 * role changes raise the auth-cache generations once committed, so the gateway stops honouring the old
 * facts on the very next request.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { AdminService } from '@assay/proto/assay/identity/v1/identity_pb';
import { AppError, validation } from '@assay/errors';
import { issueSecret } from '@assay/contracts/identity/tokens';
import type { Wiring } from '../wiring';
import { requireEmail, requireId, requireText } from '../domain/input';
import { roleOf } from '../domain/roles';
import { createOrg, orgExists, setMemberRole, upsertMember } from '../store/organizations';
import { createUser, userExists } from '../store/users';
import { createProject, getProject } from '../store/projects';
import { createToken } from '../store/tokens';
import { issuePat, revoke, rotate } from '../domain/tokens';
import { link } from '../domain/invitations';

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
        const id = await createToken(pool, {
          type: 'api_key',
          userId: null,
          projectId: req.projectId,
          name,
          allProjects: false,
          projectIds: [],
          expiresAt,
          secretHash: secret.hash,
        });
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
  };
}
