/**
 * The gateway's internal Connect server (ADMIN_PORT): AdminService for the admin CLI and IdentityService for
 * the other services. Both require the internal token; neither is reachable through the public port.
 */
import type { ConnectRouter } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AdminService, IdentityService, Role as RoleEnum } from '@assay/proto/assay/identity/v1/identity_pb';
import { AppError, validation } from '@assay/errors';
import type { Role } from '@assay/service-kit';
import { ID_PATTERN } from '@assay/db';
import { issueSecret } from './tokens';
import type { IdentityStore } from './store';
import type { Authenticator } from './authenticator';

const ROLE_FROM_ENUM: Partial<Record<RoleEnum, Role>> = {
  [RoleEnum.OWNER]: 'owner',
  [RoleEnum.ADMIN]: 'admin',
  [RoleEnum.MEMBER]: 'member',
  [RoleEnum.VIEWER]: 'viewer',
};
const ROLE_TO_ENUM: Record<Role, RoleEnum> = {
  owner: RoleEnum.OWNER,
  admin: RoleEnum.ADMIN,
  member: RoleEnum.MEMBER,
  viewer: RoleEnum.VIEWER,
};

function roleOf(r: RoleEnum): Role {
  const role = ROLE_FROM_ENUM[r];
  if (!role) throw validation('role must be one of owner, admin, member, viewer', [{ path: 'role', message: 'unknown role' }]);
  return role;
}

function requireText(value: string, field: string, max = 255): string {
  const v = value.trim();
  if (v.length === 0 || v.length > max)
    throw validation(`${field} is required (1-${max} characters)`, [{ path: field, message: 'required' }]);
  return v;
}

function requireId(value: string, field: string): string {
  if (!ID_PATTERN.test(value)) throw validation(`${field} is not a valid id`, [{ path: field, message: 'invalid id' }]);
  return value;
}

export function adminRoutes(router: ConnectRouter, deps: { store: IdentityStore; auth: Authenticator }): void {
  const { store, auth } = deps;

  router.service(AdminService, {
    async createOrg(req) {
      return { id: await store.createOrg(requireText(req.name, 'name')) };
    },
    async createUser(req) {
      const email = requireText(req.email, 'email', 320);
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw validation('email is not an e-mail address', [{ path: 'email', message: 'invalid' }]);
      return { id: await store.createUser(email, requireText(req.name, 'name')) };
    },
    async addMember(req) {
      const role = roleOf(req.role);
      if (!(await store.orgExists(requireId(req.orgId, 'org')))) throw new AppError('NOT_FOUND', 'unknown organization');
      if (!(await store.userExists(requireId(req.userId, 'user')))) throw new AppError('NOT_FOUND', 'unknown user');
      await store.upsertMember(req.orgId, req.userId, role);
      await auth.invalidate(await store.secretHashesOfUser(req.userId));
      return {};
    },
    async setMemberRole(req) {
      const role = roleOf(req.role);
      if (!(await store.setMemberRole(requireId(req.orgId, 'org'), requireId(req.userId, 'user'), role))) {
        throw new AppError('NOT_FOUND', 'the user is not a member of that organization');
      }
      await auth.invalidate(await store.secretHashesOfUser(req.userId));
      return {};
    },
    async createProject(req) {
      if (!(await store.orgExists(requireId(req.orgId, 'org')))) throw new AppError('NOT_FOUND', 'unknown organization');
      return { id: await store.createProject(req.orgId, requireText(req.name, 'name')) };
    },
    async createToken(req) {
      const isApiKey = req.projectId !== '';
      if (isApiKey === (req.userId !== '')) throw validation('give exactly one of user or project');
      if (req.expiresInSeconds < 0n) throw validation('expiry must be positive');
      const expiresAt = req.expiresInSeconds > 0n ? new Date(Date.now() + Number(req.expiresInSeconds) * 1000) : null;
      const secret = issueSecret();
      const name = req.name.trim() || (isApiKey ? 'api key' : 'personal access token');
      if (isApiKey) {
        if (!(await store.getProject(requireId(req.projectId, 'project')))) throw new AppError('NOT_FOUND', 'unknown project');
        const id = await store.createToken({
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
      if (!(await store.userExists(requireId(req.userId, 'user')))) throw new AppError('NOT_FOUND', 'unknown user');
      const wildcard = req.projectIds.length === 0 || req.projectIds.includes('*');
      const projectIds = wildcard ? [] : [...new Set(req.projectIds)];
      if (!wildcard) {
        projectIds.forEach((p) => requireId(p, 'projects'));
        const known = new Set(await store.existingProjectIds(projectIds));
        const missing = projectIds.filter((p) => !known.has(p));
        if (missing.length > 0) throw new AppError('NOT_FOUND', `unknown project(s): ${missing.join(', ')}`);
      }
      const id = await store.createToken({
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
      const hashes = await store.revokeToken(requireId(req.id, 'id'));
      if (!hashes) throw new AppError('NOT_FOUND', 'unknown token');
      await auth.invalidate(hashes);
      return {};
    },
    async rotateToken(req) {
      const secret = issueSecret();
      const rotated = await store.rotateSecret(requireId(req.id, 'id'), secret.hash);
      if (!rotated) throw new AppError('NOT_FOUND', 'unknown or revoked token');
      await auth.invalidate(rotated.oldHashes);
      return { id: req.id, token: secret.token, uploadKey: rotated.type === 'api_key' ? secret.uploadKey : '' };
    },
  });

  router.service(IdentityService, {
    async resolveMembers(req) {
      const found = await store.resolveMembers(requireId(req.orgId, 'orgId'), req.refs);
      return {
        members: req.refs.map((ref) => {
          const m = found.get(ref);
          return m
            ? { ref, found: true, userId: m.userId, name: m.name, email: m.email, role: ROLE_TO_ENUM[m.role] }
            : { ref, found: false };
        }),
      };
    },
    async getProject(req) {
      const p = await store.getProject(req.projectId);
      if (!p) throw new AppError('NOT_FOUND', 'unknown project');
      return { id: p.id, orgId: p.orgId, name: p.name, createdAt: timestampFromDate(p.createdAt) };
    },
  });
}
