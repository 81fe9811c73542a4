/** SQL for suites. Every write of a project's suites takes that project's advisory lock (sibling order). */
import { newId, type PoolClient, type Queryable } from '@assay/db';
import { lastModifiedOf, type Author, type UserSnapshot } from './common';

export interface SuiteRow {
  id: string;
  projectId: string;
  parentId: string | null;
  parentName: string | null;
  name: string;
  description: string;
  depth: number;
  position: number;
  lastModifiedBy: UserSnapshot | null;
  updatedAt: Date;
}

const SELECT_SUITE = `
  SELECT s.id, s.project_id, s.parent_id, p.name AS parent_name, s.name, s.description, s.depth, s.position,
         s.last_modified_by_id, s.last_modified_by_name, s.last_modified_by_email, s.updated_at
    FROM suites s LEFT JOIN suites p ON p.id = s.parent_id`;

function toRow(r: Record<string, unknown>): SuiteRow {
  return {
    id: r.id as string,
    projectId: r.project_id as string,
    parentId: r.parent_id as string | null,
    parentName: r.parent_name as string | null,
    name: r.name as string,
    description: r.description as string,
    depth: r.depth as number,
    position: r.position as number,
    lastModifiedBy: lastModifiedOf(r),
    updatedAt: r.updated_at as Date,
  };
}

export async function lockProjectSuites(c: PoolClient, projectId: string): Promise<void> {
  await c.query(`SELECT pg_advisory_xact_lock(hashtext('manual_testing:suites:' || $1))`, [projectId]);
}

export async function findSuite(q: Queryable, projectId: string, id: string): Promise<SuiteRow | undefined> {
  const { rows } = await q.query(`${SELECT_SUITE} WHERE s.project_id = $1 AND s.id = $2`, [projectId, id]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

export async function insertSuite(
  c: PoolClient,
  s: { projectId: string; parentId: string | null; name: string; description: string; depth: number; author: Author },
): Promise<string> {
  const id = newId();
  await c.query(
    `INSERT INTO suites (id, project_id, parent_id, name, description, depth, position, created_by,
                         last_modified_by_id, last_modified_by_name, last_modified_by_email)
     VALUES ($1, $2, $3, $4, $5, $6,
             (SELECT coalesce(max(position), 0) + 1 FROM suites WHERE project_id = $2 AND parent_id IS NOT DISTINCT FROM $3),
             $7, $7, $8, $9)`,
    [id, s.projectId, s.parentId, s.name, s.description, s.depth, s.author.id, s.author.name, s.author.email],
  );
  return id;
}

export async function countRootSuites(q: Queryable, projectId: string): Promise<number> {
  const { rows } = await q.query(`SELECT count(*) AS n FROM suites WHERE project_id = $1 AND parent_id IS NULL`, [projectId]);
  return rows[0].n;
}

/** One page of root suites and every descendant of them, in display order. */
export async function listSuiteTrees(q: Queryable, projectId: string, limit: number, offset: number): Promise<SuiteRow[]> {
  const { rows } = await q.query(
    `WITH RECURSIVE roots AS (
        SELECT id FROM suites WHERE project_id = $1 AND parent_id IS NULL ORDER BY position, created_at LIMIT $2 OFFSET $3
     ), tree AS (
        SELECT id FROM roots
        UNION ALL
        SELECT s.id FROM suites s JOIN tree t ON s.parent_id = t.id
     )
     ${SELECT_SUITE} WHERE s.id IN (SELECT id FROM tree) ORDER BY s.depth, s.position, s.created_at`,
    [projectId, limit, offset],
  );
  return rows.map(toRow);
}

/** Suites of the project with exactly this name (case-sensitive), in tree order. */
export async function suitesNamed(q: Queryable, projectId: string, name: string): Promise<SuiteRow[]> {
  const { rows } = await q.query(`${SELECT_SUITE} WHERE s.project_id = $1 AND s.name = $2 ORDER BY s.depth, s.position`, [projectId, name]);
  return rows.map(toRow);
}

/** A suite and every suite below it, in display order. */
export async function suiteSubtree(q: Queryable, projectId: string, id: string): Promise<SuiteRow[]> {
  const { rows } = await q.query(
    `WITH RECURSIVE tree AS (
        SELECT id FROM suites WHERE project_id = $1 AND id = $2
        UNION ALL
        SELECT s.id FROM suites s JOIN tree t ON s.parent_id = t.id
     )
     ${SELECT_SUITE} WHERE s.id IN (SELECT id FROM tree) ORDER BY s.depth, s.position, s.created_at`,
    [projectId, id],
  );
  return rows.map(toRow);
}

export async function updateSuiteText(c: PoolClient, id: string, s: { name: string; description: string; author: Author }): Promise<void> {
  await c.query(
    `UPDATE suites SET name = $2, description = $3, last_modified_by_id = $4, last_modified_by_name = $5,
                       last_modified_by_email = $6, updated_at = now()
      WHERE id = $1`,
    [id, s.name, s.description, s.author.id, s.author.name, s.author.email],
  );
}

/**
 * Moves a suite (and its subtree) to the end of `newParentId`'s children (null: the top level), shifting
 * every depth of the subtree by `depthDelta` and closing the gap it leaves among its old siblings.
 */
export async function moveSuite(
  c: PoolClient,
  suite: SuiteRow,
  newParentId: string | null,
  subtreeIds: string[],
  depthDelta: number,
): Promise<void> {
  await c.query(
    `UPDATE suites SET position = position - 1
      WHERE project_id = $1 AND parent_id IS NOT DISTINCT FROM $2 AND position > $3`,
    [suite.projectId, suite.parentId, suite.position],
  );
  await c.query(
    `UPDATE suites SET parent_id = $3,
            position = (SELECT coalesce(max(position), 0) + 1 FROM suites
                         WHERE project_id = $2 AND parent_id IS NOT DISTINCT FROM $3 AND id <> $1)
      WHERE id = $1`,
    [suite.id, suite.projectId, newParentId],
  );
  if (depthDelta !== 0) await c.query(`UPDATE suites SET depth = depth + $2 WHERE id = ANY($1)`, [subtreeIds, depthDelta]);
}
