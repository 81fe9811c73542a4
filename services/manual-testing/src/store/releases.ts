/** SQL for releases. Writes that nest or move releases take the project's release lock (depth ≤ 3). */
import { newId, type PoolClient, type Queryable } from '@assay/db';
import type { PlatformName } from '@assay/contracts/manual-testing/values';
import { lastModifiedOf, likePattern, Where, type Author, type UserSnapshot } from './common';

export interface LinkedIssueData {
  provider?: string;
  displayId?: string;
  url?: string;
  title?: string;
}

export interface BuildTargetData {
  platform: PlatformName;
  version?: string;
  buildNumber?: string;
  source?: string;
  deployUrl?: string;
}

export interface ReleaseFields {
  name: string;
  description: string;
  note: string;
  type: string | null;
  startDate: string | null;
  endDate: string | null;
  branch: string | null;
  environment: string | null;
  linkedIssues: LinkedIssueData[];
  buildTarget: BuildTargetData | null;
  testers: UserSnapshot[];
  isStarted: boolean;
  startedAt: Date | null;
  isCompleted: boolean;
  completedAt: Date | null;
}

export interface ReleaseRow extends ReleaseFields {
  id: string;
  projectId: string;
  parentId: string | null;
  depth: number;
  lastModifiedBy: UserSnapshot | null;
  createdAt: Date;
  updatedAt: Date;
}

function toRow(r: Record<string, unknown>): ReleaseRow {
  return {
    id: r.id as string,
    projectId: r.project_id as string,
    parentId: r.parent_id as string | null,
    depth: r.depth as number,
    name: r.name as string,
    description: r.description as string,
    note: r.note as string,
    type: r.type as string | null,
    startDate: r.start_date as string | null,
    endDate: r.end_date as string | null,
    branch: r.branch as string | null,
    environment: r.environment as string | null,
    linkedIssues: r.linked_issues as LinkedIssueData[],
    buildTarget: r.build_target as BuildTargetData | null,
    testers: r.testers as UserSnapshot[],
    isStarted: r.is_started as boolean,
    startedAt: r.started_at as Date | null,
    isCompleted: r.is_completed as boolean,
    completedAt: r.completed_at as Date | null,
    lastModifiedBy: lastModifiedOf(r),
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
  };
}

export async function lockProjectReleases(c: PoolClient, projectId: string): Promise<void> {
  await c.query(`SELECT pg_advisory_xact_lock(hashtext('manual_testing:releases:' || $1))`, [projectId]);
}

export async function findRelease(q: Queryable, projectId: string, id: string, forUpdate = false): Promise<ReleaseRow | undefined> {
  const { rows } = await q.query(`SELECT * FROM releases WHERE project_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    projectId,
    id,
  ]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

/** Depth of the deepest release below `id`, relative to it (0 = no children). */
export async function releaseSubtree(q: Queryable, id: string): Promise<{ ids: string[]; height: number }> {
  const { rows } = await q.query(
    `WITH RECURSIVE tree AS (
        SELECT id, 0 AS level FROM releases WHERE id = $1
        UNION ALL
        SELECT r.id, t.level + 1 FROM releases r JOIN tree t ON r.parent_id = t.id
     ) SELECT id, level FROM tree`,
    [id],
  );
  return { ids: rows.map((r) => r.id as string), height: Math.max(0, ...rows.map((r) => r.level as number)) };
}

function params(f: ReleaseFields): unknown[] {
  return [
    f.name,
    f.description,
    f.note,
    f.type,
    f.startDate,
    f.endDate,
    f.branch,
    f.environment,
    JSON.stringify(f.linkedIssues),
    f.buildTarget === null ? null : JSON.stringify(f.buildTarget),
    JSON.stringify(f.testers),
    f.isStarted,
    f.startedAt,
    f.isCompleted,
    f.completedAt,
  ];
}

export async function insertRelease(
  c: PoolClient,
  k: { projectId: string; parentId: string | null; depth: number; fields: ReleaseFields; author: Author },
): Promise<string> {
  const id = newId();
  await c.query(
    `INSERT INTO releases (name, description, note, type, start_date, end_date, branch, environment, linked_issues, build_target,
                           testers, is_started, started_at, is_completed, completed_at,
                           id, project_id, parent_id, depth, created_by, last_modified_by_id, last_modified_by_name, last_modified_by_email)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $20, $21, $22)`,
    [...params(k.fields), id, k.projectId, k.parentId, k.depth, k.author.id, k.author.name, k.author.email],
  );
  return id;
}

export async function updateRelease(c: PoolClient, id: string, f: ReleaseFields, author: Author): Promise<void> {
  await c.query(
    `UPDATE releases SET name = $1, description = $2, note = $3, type = $4, start_date = $5, end_date = $6, branch = $7,
                         environment = $8, linked_issues = $9, build_target = $10, testers = $11, is_started = $12,
                         started_at = $13, is_completed = $14, completed_at = $15,
                         last_modified_by_id = $17, last_modified_by_name = $18, last_modified_by_email = $19, updated_at = now()
      WHERE id = $16`,
    [...params(f), id, author.id, author.name, author.email],
  );
}

/** Re-parents a release and shifts the depth of its subtree. */
export async function moveRelease(c: PoolClient, id: string, parentId: string | null, subtreeIds: string[], delta: number): Promise<void> {
  await c.query(`UPDATE releases SET parent_id = $2 WHERE id = $1`, [id, parentId]);
  if (delta !== 0) await c.query(`UPDATE releases SET depth = depth + $2 WHERE id = ANY($1)`, [subtreeIds, delta]);
}

export async function listReleases(
  q: Queryable,
  projectId: string,
  f: { search?: string; isCompleted?: boolean },
  limit: number,
  offset: number,
): Promise<{ rows: ReleaseRow[]; total: number }> {
  const w = new Where().add('project_id = $?', projectId);
  if (f.search !== undefined && f.search.trim() !== '') w.add('name ILIKE $?', likePattern(f.search.trim()));
  if (f.isCompleted !== undefined) w.add('is_completed = $?', f.isCompleted);
  const whereSql = w.sql;
  const countParams = [...w.params];
  const pageSql = `SELECT * FROM releases ${whereSql} ORDER BY created_at DESC, id DESC LIMIT ${w.next(limit)} OFFSET ${w.next(offset)}`;
  const [count, page] = await Promise.all([
    q.query(`SELECT count(*) AS n FROM releases ${whereSql}`, countParams),
    q.query(pageSql, w.params),
  ]);
  return { rows: page.rows.map(toRow), total: count.rows[0].n as number };
}
