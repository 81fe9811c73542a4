/** Test fixtures created through the real admin RPC (the same path the admin CLI takes). */
import { randomBytes } from 'node:crypto';
import type { Client } from '@connectrpc/connect';
import { AdminService, Role } from '@assay/proto/assay/identity/v1/identity_pb';
import { createRpcClient } from '@assay/service-kit';

export type RoleName = 'owner' | 'admin' | 'member' | 'viewer';
const ROLE: Record<RoleName, Role> = { owner: Role.OWNER, admin: Role.ADMIN, member: Role.MEMBER, viewer: Role.VIEWER };

export interface Tenant {
  orgId: string;
  projectId: string;
  userId: string;
  email: string;
  name: string;
  token: string;
  tokenId: string;
}

export class Admin {
  readonly rpc: Client<typeof AdminService>;

  constructor(adminUrl: string, internalToken: string) {
    this.rpc = createRpcClient(AdminService, { baseUrl: adminUrl, internalToken });
  }

  async org(name = 'Test org'): Promise<string> {
    return (await this.rpc.createOrg({ name })).id;
  }

  async project(orgId: string, name = 'Test project'): Promise<string> {
    return (await this.rpc.createProject({ orgId, name })).id;
  }

  /** A new user, member of `orgId` with `role`, and a token for `projects` (default: every project). */
  async member(orgId: string, role: RoleName, opts: { projects?: string[] | '*'; expiresInSeconds?: number; name?: string } = {}) {
    const suffix = randomBytes(4).toString('hex');
    const email = `user-${suffix}@example.test`;
    const name = opts.name ?? `User ${suffix}`;
    const userId = (await this.rpc.createUser({ email, name })).id;
    await this.rpc.addMember({ orgId, userId, role: ROLE[role] });
    const tok = await this.token(userId, opts);
    return { userId, email, name, token: tok.token, tokenId: tok.id };
  }

  async token(userId: string, opts: { projects?: string[] | '*'; expiresInSeconds?: number } = {}) {
    const projects = opts.projects === undefined || opts.projects === '*' ? ['*'] : opts.projects;
    return this.rpc.createToken({ userId, projectIds: projects, expiresInSeconds: BigInt(opts.expiresInSeconds ?? 0) });
  }

  async apiKey(projectId: string) {
    return this.rpc.createToken({ projectId, name: 'ci' });
  }

  async setRole(orgId: string, userId: string, role: RoleName) {
    await this.rpc.setMemberRole({ orgId, userId, role: ROLE[role] });
  }

  /** A fresh organization with one project and one member holding `role`. */
  async tenant(role: RoleName = 'owner'): Promise<Tenant> {
    const orgId = await this.org();
    const projectId = await this.project(orgId);
    const m = await this.member(orgId, role, { projects: [projectId] });
    return { orgId, projectId, ...m };
  }
}
