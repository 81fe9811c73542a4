/**
 * Organizations and memberships (SQL on the `identity` schema). A role change bumps the user's auth
 * generation in the same transaction, so the gateway's cached project access of every token of the user is
 * read again on the next request.
 */
import { newId, withTransaction, type Pool, type Queryable } from '@assay/db';
import type { IdPage, Role } from '@assay/service-kit';

export async function createOrg(q: Queryable, name: string): Promise<string> {
  const id = newId();
  await q.query(`INSERT INTO orgs (id, name) VALUES ($1, $2)`, [id, name]);
  return id;
}

export async function orgExists(q: Queryable, orgId: string): Promise<boolean> {
  return (await q.query(`SELECT 1 FROM orgs WHERE id = $1`, [orgId])).rowCount === 1;
}

/** Adds the member or changes their role; returns the user's new auth generation. */
export async function upsertMember(pool: Pool, orgId: string, userId: string, role: Role): Promise<number> {
  return withTransaction(pool, async (c) => {
    await c.query(
      `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3)
       ON CONFLICT (org_id, user_id) DO UPDATE SET role = EXCLUDED.role, updated_at = now()`,
      [orgId, userId, role],
    );
    return bumpUser(c, userId);
  });
}

/** Changes a member's role; returns the user's new auth generation, or undefined when not a member. */
export async function setMemberRole(pool: Pool, orgId: string, userId: string, role: Role): Promise<number | undefined> {
  return withTransaction(pool, async (c) => {
    const res = await c.query(`UPDATE memberships SET role = $3, updated_at = now() WHERE org_id = $1 AND user_id = $2`, [
      orgId,
      userId,
      role,
    ]);
    return res.rowCount === 1 ? bumpUser(c, userId) : undefined;
  });
}

async function bumpUser(c: Queryable, userId: string): Promise<number> {
  const { rows } = await c.query(`UPDATE users SET auth_generation = auth_generation + 1 WHERE id = $1 RETURNING auth_generation`, [
    userId,
  ]);
  return Number(rows[0].auth_generation);
}

/** Organizations where the user is a member (a wildcard token's scope), oldest membership first. */
export async function userOrgIds(q: Queryable, userId: string): Promise<string[]> {
  const { rows } = await q.query(`SELECT org_id FROM memberships WHERE user_id = $1 ORDER BY created_at`, [userId]);
  return rows.map((r) => r.org_id);
}

export interface Member {
  userId: string;
  name: string;
  email: string;
  role: Role;
}

/** Members of an organization named by user id or e-mail (case-insensitive); ref → member. */
export async function resolveMembers(q: Queryable, orgId: string, refs: string[]): Promise<Map<string, Member>> {
  const lowered = refs.map((r) => r.toLowerCase());
  const { rows } = await q.query(
    `SELECT u.id, u.name, u.email, m.role FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.org_id = $1 AND (u.id = ANY($2) OR u.email = ANY($3))`,
    [orgId, refs, lowered],
  );
  const out = new Map<string, Member>();
  for (const ref of refs) {
    const r = rows.find((row) => row.id === ref || row.email === ref.toLowerCase());
    if (r) out.set(ref, { userId: r.id, name: r.name, email: r.email, role: r.role });
  }
  return out;
}

export interface AccountOrganization {
  id: string;
  name: string;
  role: Role;
}

/** The user's organizations with their role, oldest membership first. */
export async function organizationsOf(q: Queryable, userId: string): Promise<AccountOrganization[]> {
  const { rows } = await q.query(
    `SELECT o.id, o.name, m.role FROM memberships m JOIN orgs o ON o.id = m.org_id WHERE m.user_id = $1 ORDER BY m.created_at`,
    [userId],
  );
  return rows.map((r) => ({ id: r.id, name: r.name, role: r.role }));
}

export interface OrgRow {
  id: string;
  name: string;
  createdAt: Date;
}

/** One keyset page of every organization, newest first (`page.size + 1` rows: the extra one tells a next page). */
export async function listOrgs(q: Queryable, page: IdPage): Promise<OrgRow[]> {
  const { rows } = await q.query(`SELECT id, name, created_at FROM orgs WHERE ($1::text IS NULL OR id < $1) ORDER BY id DESC LIMIT $2`, [
    page.before ?? null,
    page.size + 1,
  ]);
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at }));
}

export interface MemberRow extends Member {
  joinedAt: Date;
}

/** One keyset page of an organization's members, by user id, newest user first (`page.size + 1` rows). */
export async function listMembers(q: Queryable, orgId: string, page: IdPage): Promise<MemberRow[]> {
  const { rows } = await q.query(
    `SELECT u.id, u.name, u.email, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.org_id = $1 AND ($2::text IS NULL OR m.user_id < $2) ORDER BY m.user_id DESC LIMIT $3`,
    [orgId, page.before ?? null, page.size + 1],
  );
  return rows.map((r) => ({ userId: r.id, name: r.name, email: r.email, role: r.role, joinedAt: r.created_at }));
}
