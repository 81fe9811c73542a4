/** Users (SQL on the `identity` schema). The e-mail address is the natural key, stored lower-cased. */
import { newId, type Queryable } from '@assay/db';

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
