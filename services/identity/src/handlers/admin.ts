/**
 * AdminService: what the admin CLI does (organizations, users, memberships, projects, tokens). Only the
 * admin credential may call it (the service kit refuses every other caller). Revocations, rotations and
 * role changes raise the auth-cache generations once committed, so the gateway stops honouring the old
 * facts on the very next request.
 */
import type { ServiceImpl } from '@connectrpc/connect';
import type { AdminService } from '@assay/proto/assay/identity/v1/identity_pb';
import { AppError, validation } from '@assay/errors';
import { issueSecret } from '@assay/contracts/identity/tokens';
import type { Wiring } from '../wiring';
import { requireEmail, requireId, requireText } from '../domain/input';
import { roleOf } from '../domain/roles';
import { createOrg, orgExists, setMemberRole, upsertMember } from '../store/organizations';
import { createUser, userExists } from '../store/users';
import { createProject, existingProjectIds, getProject } from '../store/projects';
import { createToken, revokeToken, rotateSecret } from '../store/tokens';

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
      const wildcard = req.projectIds.length === 0 || req.projectIds.includes('*');
      const projectIds = wildcard ? [] : [...new Set(req.projectIds)];
      if (!wildcard) {
        projectIds.forEach((p) => requireId(p, 'projects'));
        const known = new Set(await existingProjectIds(pool, projectIds));
        const missing = projectIds.filter((p) => !known.has(p));
        if (missing.length > 0) throw new AppError('NOT_FOUND', `unknown project(s): ${missing.join(', ')}`);
      }
      const id = await createToken(pool, {
        type: 'pat',
        userId: req.userId,
        projectId: null,
        name,
        allProjects: wildcard,
        projectIds,
        expiresAt,
        secretHash: secret.hash,
      });
      return { id, token: secret.token, uploadKey: '' };
    },
    async revokeToken(req) {
      const generation = await revokeToken(pool, requireId(req.id, 'id'));
      if (generation === undefined) throw new AppError('NOT_FOUND', 'unknown token');
      await generations.token(req.id, generation);
      return {};
    },
    async rotateToken(req) {
      const secret = issueSecret();
      const rotated = await rotateSecret(pool, requireId(req.id, 'id'), secret.hash);
      if (!rotated) throw new AppError('NOT_FOUND', 'unknown or revoked token');
      await generations.token(req.id, rotated.generation);
      return { id: req.id, token: secret.token, uploadKey: rotated.type === 'api_key' ? secret.uploadKey : '' };
    },
  };
}
