/** Users (SQL on the `identity` schema). The e-mail address is the natural key, stored lower-cased. */
import { newId, type Queryable } from '@assay/db';
import type { IdPage } from '@assay/service-kit';

/** Creating a user whose e-mail exists returns the existing id. */
export async function createUser(q: Queryable, email: string, name: string): Promise<string> {
  const { rows } = await q.query(
    `INSERT INTO users (id, email, name) VALUES ($1, lower($2), $3)
     ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email RETURNING id`,
    [newId(), email, name],
  );
  return rows[0].id;
}

export async function userExists(q: Queryable, userId: string): Promise<boolean> {
  return (await q.query(`SELECT 1 FROM users WHERE id = $1`, [userId])).rowCount === 1;
}

export interface UserRow {
  id: string;
  email: string;
  name: string;
  passwordHash: string | null;
}

export async function findUserByEmail(q: Queryable, email: string): Promise<UserRow | undefined> {
  const { rows } = await q.query(`SELECT id, email, name, password_hash FROM users WHERE email = lower($1)`, [email]);
  const r = rows[0];
  return r ? { id: r.id, email: r.email, name: r.name, passwordHash: r.password_hash } : undefined;
}

export async function findUser(q: Queryable, userId: string): Promise<UserRow | undefined> {
  const { rows } = await q.query(`SELECT id, email, name, password_hash FROM users WHERE id = $1`, [userId]);
  const r = rows[0];
  return r ? { id: r.id, email: r.email, name: r.name, passwordHash: r.password_hash } : undefined;
}

export async function setPassword(q: Queryable, userId: string, passwordHash: string): Promise<void> {
  await q.query(`UPDATE users SET password_hash = $2 WHERE id = $1`, [userId, passwordHash]);
}

/** The user's auth generation (bumped on role changes), or undefined for an unknown user. */
export async function userAuthGeneration(q: Queryable, userId: string): Promise<number | undefined> {
  const { rows } = await q.query(`SELECT auth_generation FROM users WHERE id = $1`, [userId]);
  return rows[0] ? Number(rows[0].auth_generation) : undefined;
}

/** One keyset page of every user, newest first (`page.size + 1` rows: the extra one tells a next page). */
export async function listUsers(q: Queryable, page: IdPage): Promise<{ id: string; email: string; name: string; createdAt: Date }[]> {
  const { rows } = await q.query(
    `SELECT id, email, name, created_at FROM users WHERE ($1::text IS NULL OR id < $1) ORDER BY id DESC LIMIT $2`,
    [page.before ?? null, page.size + 1],
  );
  return rows.map((r) => ({ id: r.id, email: r.email, name: r.name, createdAt: r.created_at }));
}
