/** How the read side queries Postgres. */
import { createHash } from 'node:crypto';
import type { Queryable, Row } from '@assay/db';

const names = new Map<string, string>();

/**
 * A read as a named (prepared) statement: each pooled connection parses and plans it once instead of on every call
 * (parse and plan were a good part of Postgres' CPU per request: the answers themselves come from small tables).
 * Names are the text's hash, so the SQL variants (filters, sorts) are statements of their own.
 */
export function read(db: Queryable, text: string, values: unknown[] = []): Promise<{ rows: Row[] }> {
  let name = names.get(text);
  if (name === undefined) {
    name = `analytics_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return db.query({ name, text, values });
}
