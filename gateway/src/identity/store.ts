/** SQL on the gateway's `identity` schema. Nothing else reads these tables. */
import { newId, withTransaction, type Pool, type Queryable } from '@assay/db';
import type { Role, TokenType } from '@assay/service-kit';

export interface TokenRecord {
  id: string;
  type: TokenType;
  userId: string | null;
  projectId: string | null;
  allProjects: boolean;
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** Set when the token, or the presented secret (after a rotation), is revoked. */
  revoked: boolean;
}

export interface ProjectAccess {
  projectId: string;
  projectName: string;
  orgId: string;
  /** The user's live role in the project's organization; null when not a member (or an api key). */
  role: Role | null;
  userName: string | null;
  userEmail: string | null;
  /** Whether the token's scope names this project (or is the wildcard / the api key's project). */
  covered: boolean;
}

export interface ScopeProject {
  orgId: string;
  projectId: string;
  projectName: string;
}

export class IdentityStore {
  constructor(private readonly pool: Pool) {}

  async findTokenBySecretHash(hash: Buffer): Promise<TokenRecord | undefined> {
    const { rows } = await this.pool.query(
      `SELECT t.id, t.type, t.user_id, t.project_id, t.all_projects, t.expires_at, t.created_at, t.last_used_at,
              (t.revoked_at IS NOT NULL OR s.revoked_at IS NOT NULL) AS revoked
         FROM token_secrets s JOIN tokens t ON t.id = s.token_id
        WHERE s.secret_hash = $1`,
      [hash],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      id: r.id,
      type: r.type,
      userId: r.user_id,
      projectId: r.project_id,
      allProjects: r.all_projects,
      expiresAt: r.expires_at,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
      revoked: r.revoked,
    };
  }

  /** How `token` relates to `projectId`; undefined when the project does not exist. */
  async projectAccess(token: TokenRecord, projectId: string): Promise<ProjectAccess | undefined> {
    const { rows } = await this.pool.query(
      `SELECT p.id, p.name, p.org_id, m.role, u.name AS user_name, u.email AS user_email,
              EXISTS (SELECT 1 FROM token_projects tp WHERE tp.token_id = $3 AND tp.project_id = p.id) AS listed
         FROM projects p
         LEFT JOIN memberships m ON m.org_id = p.org_id AND m.user_id = $2
         LEFT JOIN users u ON u.id = $2
        WHERE p.id = $1`,
      [projectId, token.userId, token.id],
    );
    const r = rows[0];
    if (!r) return undefined;
    const covered = token.type === 'api_key' ? token.projectId === r.id : r.role !== null && (token.allProjects || r.listed);
    return { projectId: r.id, projectName: r.name, orgId: r.org_id, role: r.role, userName: r.user_name, userEmail: r.user_email, covered };
  }

  /** Every project the token covers, for token-info scopes. */
  async scopeProjects(token: TokenRecord): Promise<ScopeProject[]> {
    const { rows } = await this.pool.query(
      token.type === 'api_key'
        ? `SELECT p.org_id, p.id, p.name FROM projects p WHERE p.id = $1 ORDER BY p.created_at`
        : `SELECT p.org_id, p.id, p.name FROM token_projects tp JOIN projects p ON p.id = tp.project_id
             JOIN memberships m ON m.org_id = p.org_id AND m.user_id = $2
            WHERE tp.token_id = $1 ORDER BY p.created_at`,
      token.type === 'api_key' ? [token.projectId] : [token.id, token.userId],
    );
    return rows.map((r) => ({ orgId: r.org_id, projectId: r.id, projectName: r.name }));
  }

  /** Organizations where the user is a member (wildcard scope). */
  async userOrgIds(userId: string): Promise<string[]> {
    const { rows } = await this.pool.query(`SELECT org_id FROM memberships WHERE user_id = $1 ORDER BY created_at`, [userId]);
    return rows.map((r) => r.org_id);
  }

  /** Projects of the user's organizations (to tell whether a wildcard token covers exactly one). */
  async projectsOfOrgs(orgIds: string[]): Promise<ScopeProject[]> {
    if (orgIds.length === 0) return [];
    const { rows } = await this.pool.query(`SELECT org_id, id, name FROM projects WHERE org_id = ANY($1) ORDER BY created_at LIMIT 2`, [
      orgIds,
    ]);
    return rows.map((r) => ({ orgId: r.org_id, projectId: r.id, projectName: r.name }));
  }

  async lastUsedAt(tokenId: string): Promise<Date | null> {
    const { rows } = await this.pool.query(`SELECT last_used_at FROM tokens WHERE id = $1`, [tokenId]);
    return rows[0]?.last_used_at ?? null;
  }

  /** Records use at most once a minute: a write per request would cost more than it tells. */
  async touchLastUsed(tokenId: string): Promise<void> {
    await this.pool.query(
      `UPDATE tokens SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds')`,
      [tokenId],
    );
  }

  // ---- admin ----------------------------------------------------------------------------------

  async createOrg(name: string): Promise<string> {
    const id = newId();
    await this.pool.query(`INSERT INTO orgs (id, name) VALUES ($1, $2)`, [id, name]);
    return id;
  }

  /** Creating a user whose e-mail exists returns the existing id (e-mail is the natural key). */
  async createUser(email: string, name: string): Promise<string> {
    const { rows } = await this.pool.query(
      `INSERT INTO users (id, email, name) VALUES ($1, lower($2), $3)
       ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email RETURNING id`,
      [newId(), email, name],
    );
    return rows[0].id;
  }

  async orgExists(orgId: string): Promise<boolean> {
    return (await this.pool.query(`SELECT 1 FROM orgs WHERE id = $1`, [orgId])).rowCount === 1;
  }

  async userExists(userId: string): Promise<boolean> {
    return (await this.pool.query(`SELECT 1 FROM users WHERE id = $1`, [userId])).rowCount === 1;
  }

  async upsertMember(orgId: string, userId: string, role: Role): Promise<void> {
    await this.pool.query(
      `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3)
       ON CONFLICT (org_id, user_id) DO UPDATE SET role = EXCLUDED.role, updated_at = now()`,
      [orgId, userId, role],
    );
  }

  async setMemberRole(orgId: string, userId: string, role: Role): Promise<boolean> {
    const res = await this.pool.query(`UPDATE memberships SET role = $3, updated_at = now() WHERE org_id = $1 AND user_id = $2`, [
      orgId,
      userId,
      role,
    ]);
    return res.rowCount === 1;
  }

  async createProject(orgId: string, name: string): Promise<string> {
    const id = newId();
    await this.pool.query(`INSERT INTO projects (id, org_id, name) VALUES ($1, $2, $3)`, [id, orgId, name]);
    return id;
  }

  async getProject(projectId: string): Promise<{ id: string; orgId: string; name: string; createdAt: Date } | undefined> {
    const { rows } = await this.pool.query(`SELECT id, org_id, name, created_at FROM projects WHERE id = $1`, [projectId]);
    const r = rows[0];
    return r ? { id: r.id, orgId: r.org_id, name: r.name, createdAt: r.created_at } : undefined;
  }

  async existingProjectIds(ids: string[]): Promise<string[]> {
    const { rows } = await this.pool.query(`SELECT id FROM projects WHERE id = ANY($1)`, [ids]);
    return rows.map((r) => r.id);
  }

  async createToken(t: {
    type: TokenType;
    userId: string | null;
    projectId: string | null;
    name: string;
    allProjects: boolean;
    projectIds: string[];
    expiresAt: Date | null;
    secretHash: Buffer;
  }): Promise<string> {
    const id = newId();
    await withTransaction(this.pool, async (c) => {
      await c.query(
        `INSERT INTO tokens (id, type, user_id, project_id, name, all_projects, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [id, t.type, t.userId, t.projectId, t.name, t.allProjects, t.expiresAt],
      );
      if (t.projectIds.length > 0) {
        await c.query(`INSERT INTO token_projects (token_id, project_id) SELECT $1, unnest($2::text[])`, [id, t.projectIds]);
      }
      await c.query(`INSERT INTO token_secrets (secret_hash, token_id) VALUES ($1, $2)`, [t.secretHash, id]);
    });
    return id;
  }

  /** Revokes the token; returns the digests of its secrets (to clear caches) or undefined if unknown. */
  async revokeToken(tokenId: string): Promise<Buffer[] | undefined> {
    return withTransaction(this.pool, async (c) => {
      const res = await c.query(`UPDATE tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1`, [tokenId]);
      if (res.rowCount !== 1) return undefined;
      return secretHashes(c, tokenId);
    });
  }

  /** Replaces the secret: the old one is revoked. Returns the old digests, or undefined if unknown/revoked. */
  async rotateSecret(tokenId: string, newHash: Buffer): Promise<{ type: TokenType; oldHashes: Buffer[] } | undefined> {
    return withTransaction(this.pool, async (c) => {
      const { rows } = await c.query(`SELECT type FROM tokens WHERE id = $1 AND revoked_at IS NULL FOR UPDATE`, [tokenId]);
      if (rows.length === 0) return undefined;
      const oldHashes = await secretHashes(c, tokenId);
      await c.query(`UPDATE token_secrets SET revoked_at = now() WHERE token_id = $1 AND revoked_at IS NULL`, [tokenId]);
      await c.query(`INSERT INTO token_secrets (secret_hash, token_id) VALUES ($1, $2)`, [newHash, tokenId]);
      return { type: rows[0].type as TokenType, oldHashes };
    });
  }

  /** Digests of every secret of every token of a user (role changes clear their cached principals). */
  async secretHashesOfUser(userId: string): Promise<Buffer[]> {
    const { rows } = await this.pool.query(
      `SELECT s.secret_hash FROM token_secrets s JOIN tokens t ON t.id = s.token_id WHERE t.user_id = $1 AND s.revoked_at IS NULL`,
      [userId],
    );
    return rows.map((r) => r.secret_hash);
  }

  async resolveMembers(orgId: string, refs: string[]): Promise<Map<string, { userId: string; name: string; email: string; role: Role }>> {
    const lowered = refs.map((r) => r.toLowerCase());
    const { rows } = await this.pool.query(
      `SELECT u.id, u.name, u.email, m.role FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.org_id = $1 AND (u.id = ANY($2) OR u.email = ANY($3))`,
      [orgId, refs, lowered],
    );
    const out = new Map<string, { userId: string; name: string; email: string; role: Role }>();
    for (const ref of refs) {
      const r = rows.find((row) => row.id === ref || row.email === ref.toLowerCase());
      if (r) out.set(ref, { userId: r.id, name: r.name, email: r.email, role: r.role });
    }
    return out;
  }
}

async function secretHashes(c: Queryable, tokenId: string): Promise<Buffer[]> {
  const { rows } = await c.query(`SELECT secret_hash FROM token_secrets WHERE token_id = $1`, [tokenId]);
  return rows.map((r: { secret_hash: Buffer }) => r.secret_hash);
}
