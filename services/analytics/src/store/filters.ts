/** SQL of the `filters` family: the values seen in the project's runs. */
import type { Queryable } from '@assay/db';
import { read } from './read';

/** Non-empty values of each kind, sorted (byte order). */
export async function filterValues(
  db: Queryable,
  projectKey: number,
): Promise<Record<'environment' | 'branch' | 'developer' | 'tag', string[]>> {
  const { rows } = await read(db, `SELECT kind, value FROM dims WHERE project_key = $1 AND value <> '' ORDER BY kind, value COLLATE "C"`, [
    projectKey,
  ]);
  const out = { environment: [] as string[], branch: [] as string[], developer: [] as string[], tag: [] as string[] };
  for (const r of rows) out[r.kind as keyof typeof out]?.push(r.value);
  return out;
}
