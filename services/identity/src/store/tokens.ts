/**
 * Tokens and their secrets (SQL on the `identity` schema). A token's `generation` is bumped in the same
 * transaction that revokes or rotates it, and read in the same statement as the token, so an answer and its
 * generation always agree (see migrations/…_auth_generations.sql).
 */
import { newId, withTransaction, type Pool, type PoolClient, type Queryable, type Row } from '@assay/db';
import type { IdPage } from '@assay/service-kit';

export type TokenType = 'pat' | 'api_key';

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
  generation: number;
  /** The user's auth generation (0 for api keys). */
  userGeneration: number;
}

const SELECT_TOKEN = `
  SELECT t.id, t.type, t.user_id, t.project_id, t.all_projects, t.expires_at, t.created_at, t.last_used_at,
         t.generation, coalesce(u.auth_generation, 0) AS user_generation`;

function tokenOf(r: Row, revoked: boolean): TokenRecord {
  return {
    id: r.id,
    type: r.type,
    userId: r.user_id,
    projectId: r.project_id,
    allProjects: r.all_projects,
    expiresAt: r.expires_at,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    revoked,
    generation: Number(r.generation),
    userGeneration: Number(r.user_generation),
  };
}

export async function findTokenBySecretHash(q: Queryable, hash: Buffer): Promise<TokenRecord | undefined> {
  const { rows } = await q.query(
    `${SELECT_TOKEN}, (t.revoked_at IS NOT NULL OR s.revoked_at IS NOT NULL) AS revoked
       FROM token_secrets s JOIN tokens t ON t.id = s.token_id LEFT JOIN users u ON u.id = t.user_id
      WHERE s.secret_hash = $1`,
    [hash],
  );
  return rows[0] ? tokenOf(rows[0], rows[0].revoked) : undefined;
}

export async function findToken(q: Queryable, tokenId: string): Promise<TokenRecord | undefined> {
  const { rows } = await q.query(
    `${SELECT_TOKEN}, t.revoked_at IS NOT NULL AS revoked
       FROM tokens t LEFT JOIN users u ON u.id = t.user_id WHERE t.id = $1`,
    [tokenId],
  );
  return rows[0] ? tokenOf(rows[0], rows[0].revoked) : undefined;
}

/**
 * Records use at most once a minute: a write per request would cost more than it tells. Within the minute nothing
 * is written (an UPDATE that keeps the value still writes a new row version) and the answer is undefined: the
 * caller's `lastUsedAt` is current.
 */
export async function touchLastUsed(q: Queryable, tokenId: string): Promise<Date | undefined> {
  const { rows } = await q.query(
    `UPDATE tokens SET last_used_at = now()
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '60 seconds') RETURNING last_used_at`,
    [tokenId],
  );
  return rows[0]?.last_used_at;
}

/** A token's rows (the token, its projects, its secret's hash): to be written in the caller's transaction. */
export async function createToken(
  c: PoolClient,
  t: {
    type: TokenType;
    userId: string | null;
    projectId: string | null;
    name: string;
    allProjects: boolean;
    projectIds: string[];
    expiresAt: Date | null;
    secretHash: Buffer;
  },
): Promise<string> {
  const id = newId();
  await c.query(`INSERT INTO tokens (id, type, user_id, project_id, name, all_projects, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    id,
    t.type,
    t.userId,
    t.projectId,
    t.name,
    t.allProjects,
    t.expiresAt,
  ]);
  if (t.projectIds.length > 0) {
    await c.query(`INSERT INTO token_projects (token_id, project_id) SELECT $1, unnest($2::text[])`, [id, t.projectIds]);
  }
  await c.query(`INSERT INTO token_secrets (secret_hash, token_id) VALUES ($1, $2)`, [t.secretHash, id]);
  return id;
}

/** Revokes the token and bumps its generation; returns the new generation, or undefined if unknown. */
export async function revokeToken(q: Queryable, tokenId: string): Promise<number | undefined> {
  const { rows } = await q.query(
    `UPDATE tokens SET revoked_at = coalesce(revoked_at, now()), generation = generation + 1 WHERE id = $1 RETURNING generation`,
    [tokenId],
  );
  return rows[0] ? Number(rows[0].generation) : undefined;
}

/** Replaces the secret (the old one is revoked) and bumps the generation; undefined if unknown or revoked. */
export async function rotateSecret(
  pool: Pool,
  tokenId: string,
  newHash: Buffer,
): Promise<{ type: TokenType; generation: number } | undefined> {
  return withTransaction(pool, async (c) => {
    const { rows } = await c.query(
      `UPDATE tokens SET generation = generation + 1 WHERE id = $1 AND revoked_at IS NULL RETURNING type, generation`,
      [tokenId],
    );
    if (rows.length === 0) return undefined;
    await c.query(`UPDATE token_secrets SET revoked_at = now() WHERE token_id = $1 AND revoked_at IS NULL`, [tokenId]);
    await c.query(`INSERT INTO token_secrets (secret_hash, token_id) VALUES ($1, $2)`, [newHash, tokenId]);
    return { type: rows[0].type as TokenType, generation: Number(rows[0].generation) };
  });
}

export interface ScopeProject {
  orgId: string;
  projectId: string;
  projectName: string;
}

/** Every project a named-scope token (or an api key) covers, for token-info. */
export async function scopeProjects(q: Queryable, token: TokenRecord): Promise<ScopeProject[]> {
  const { rows } = await q.query(
    token.type === 'api_key'
      ? `SELECT p.org_id, p.id, p.name FROM projects p WHERE p.id = $1 ORDER BY p.created_at`
      : `SELECT p.org_id, p.id, p.name FROM token_projects tp JOIN projects p ON p.id = tp.project_id
           JOIN memberships m ON m.org_id = p.org_id AND m.user_id = $2
          WHERE tp.token_id = $1 ORDER BY p.created_at`,
    token.type === 'api_key' ? [token.projectId] : [token.id, token.userId],
  );
  return rows.map((r) => ({ orgId: r.org_id, projectId: r.id, projectName: r.name }));
}

export interface TokenSummaryRow {
  id: string;
  name: string;
  allProjects: boolean;
  projects: { id: string; name: string }[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revoked: boolean;
}

/** A user's personal access tokens, newest first, with the projects each names (at most 200 tokens). */
export async function tokensOfUser(q: Queryable, userId: string): Promise<TokenSummaryRow[]> {
  const { rows } = await q.query(
    `SELECT t.id, t.name, t.all_projects, t.created_at, t.expires_at, t.last_used_at, t.revoked_at IS NOT NULL AS revoked,
            coalesce(json_agg(json_build_object('id', p.id, 'name', p.name) ORDER BY p.created_at) FILTER (WHERE p.id IS NOT NULL), '[]') AS projects
       FROM tokens t
       LEFT JOIN token_projects tp ON tp.token_id = t.id
       LEFT JOIN projects p ON p.id = tp.project_id
      WHERE t.user_id = $1 AND t.type = 'pat'
      GROUP BY t.id ORDER BY t.created_at DESC, t.id DESC LIMIT 200`,
    [userId],
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    allProjects: r.all_projects,
    projects: r.projects,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    lastUsedAt: r.last_used_at,
    revoked: r.revoked,
  }));
}

export interface AdminTokenRow {
  id: string;
  type: TokenType;
  name: string;
  userId: string | null;
  projectId: string | null;
  allProjects: boolean;
  /** The projects a personal access token names (none for a wildcard token or an api key). */
  projectIds: string[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revoked: boolean;
}

/**
 * One keyset page of a user's personal access tokens or a project's api keys, newest first (`page.size + 1`
 * rows). What a token is, never a secret nor its hash.
 */
export async function listTokens(q: Queryable, owner: { userId: string } | { projectId: string }, page: IdPage): Promise<AdminTokenRow[]> {
  const byUser = 'userId' in owner;
  const { rows } = await q.query(
    `SELECT t.id, t.type, t.name, t.user_id, t.project_id, t.all_projects, t.created_at, t.expires_at, t.last_used_at,
            t.revoked_at IS NOT NULL AS revoked,
            coalesce(array_agg(tp.project_id ORDER BY tp.project_id) FILTER (WHERE tp.project_id IS NOT NULL), '{}') AS project_ids
       FROM tokens t LEFT JOIN token_projects tp ON tp.token_id = t.id
      WHERE ${byUser ? `t.user_id = $1 AND t.type = 'pat'` : `t.project_id = $1 AND t.type = 'api_key'`}
        AND ($2::text IS NULL OR t.id < $2)
      GROUP BY t.id ORDER BY t.id DESC LIMIT $3`,
    [byUser ? owner.userId : owner.projectId, page.before ?? null, page.size + 1],
  );
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    name: r.name,
    userId: r.user_id,
    projectId: r.project_id,
    allProjects: r.all_projects,
    projectIds: r.project_ids,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    lastUsedAt: r.last_used_at,
    revoked: r.revoked,
  }));
}
