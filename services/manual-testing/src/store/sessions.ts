/** SQL for exploratory sessions. */
import { newId, type PoolClient, type Queryable } from '@assay/db';
import type { RecordStatusName } from '@assay/contracts/manual-testing/values';
import { lastModifiedOf, Where, type Author, type UserSnapshot } from './common';
import type { LinkedIssueData } from './releases';

export interface SessionFields {
  name: string;
  mission: string;
  sessionType: string | null;
  config: string | null;
  environment: string | null;
  releaseId: string | null;
  assignee: UserSnapshot | null;
  state: string | null;
  estimate: number | null;
  tags: string[];
  linkedIssues: LinkedIssueData[];
  status: RecordStatusName;
  closedAt: Date | null;
}

export interface SessionRow extends SessionFields {
  id: string;
  projectId: string;
  lastModifiedBy: UserSnapshot | null;
  createdAt: Date;
  updatedAt: Date;
}

function toRow(r: Record<string, unknown>): SessionRow {
  return {
    id: r.id as string,
    projectId: r.project_id as string,
    name: r.name as string,
    mission: r.mission as string,
    sessionType: r.session_type as string | null,
    config: r.config as string | null,
    environment: r.environment as string | null,
    releaseId: r.release_id as string | null,
    assignee: r.assignee_id
      ? { id: r.assignee_id as string, name: (r.assignee_name as string) ?? '', email: (r.assignee_email as string) ?? '' }
      : null,
    state: r.state as string | null,
    estimate: r.estimate as number | null,
    tags: r.tags as string[],
    linkedIssues: r.linked_issues as LinkedIssueData[],
    status: r.status as RecordStatusName,
    closedAt: r.closed_at as Date | null,
    lastModifiedBy: lastModifiedOf(r),
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
  };
}

function params(f: SessionFields): unknown[] {
  return [
    f.name,
    f.mission,
    f.sessionType,
    f.config,
    f.environment,
    f.releaseId,
    f.assignee?.id ?? null,
    f.assignee?.name ?? null,
    f.assignee?.email ?? null,
    f.state,
    f.estimate,
    f.tags,
    JSON.stringify(f.linkedIssues),
    f.status,
    f.closedAt,
  ];
}

export async function findSession(q: Queryable, projectId: string, id: string, forUpdate = false): Promise<SessionRow | undefined> {
  const { rows } = await q.query(`SELECT * FROM sessions WHERE project_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    projectId,
    id,
  ]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

export async function insertSession(c: PoolClient, projectId: string, f: SessionFields, author: Author): Promise<string> {
  const id = newId();
  await c.query(
    `INSERT INTO sessions (name, mission, session_type, config, environment, release_id, assignee_id, assignee_name, assignee_email,
                           state, estimate, tags, linked_issues, status, closed_at,
                           id, project_id, created_by, last_modified_by_id, last_modified_by_name, last_modified_by_email)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18, $19, $20)`,
    [...params(f), id, projectId, author.id, author.name, author.email],
  );
  return id;
}

export async function updateSession(c: PoolClient, id: string, f: SessionFields, author: Author): Promise<void> {
  await c.query(
    `UPDATE sessions SET name = $1, mission = $2, session_type = $3, config = $4, environment = $5, release_id = $6,
                         assignee_id = $7, assignee_name = $8, assignee_email = $9, state = $10, estimate = $11, tags = $12,
                         linked_issues = $13, status = $14, closed_at = $15,
                         last_modified_by_id = $17, last_modified_by_name = $18, last_modified_by_email = $19, updated_at = now()
      WHERE id = $16`,
    [...params(f), id, author.id, author.name, author.email],
  );
}

export async function listSessions(
  q: Queryable,
  projectId: string,
  f: { status?: RecordStatusName },
  limit: number,
  offset: number,
): Promise<{ rows: SessionRow[]; total: number }> {
  const w = new Where().add('project_id = $?', projectId);
  if (f.status !== undefined) w.add('status = $?', f.status);
  const whereSql = w.sql;
  const countParams = [...w.params];
  const pageSql = `SELECT * FROM sessions ${whereSql} ORDER BY created_at DESC, id DESC LIMIT ${w.next(limit)} OFFSET ${w.next(offset)}`;
  const [count, page] = await Promise.all([
    q.query(`SELECT count(*) AS n FROM sessions ${whereSql}`, countParams),
    q.query(pageSql, w.params),
  ]);
  return { rows: page.rows.map(toRow), total: count.rows[0].n as number };
}
