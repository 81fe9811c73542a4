/** Projects, and how a token relates to one (SQL on the `identity` schema). */
import { newId, type Queryable } from '@assay/db';
import type { IdPage, Role } from '@assay/service-kit';
import type { ScopeProject, TokenRecord } from './tokens';

export interface Project {
  id: string;
  orgId: string;
  name: string;
  createdAt: Date;
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

export async function createProject(q: Queryable, orgId: string, name: string): Promise<string> {
  const id = newId();
  await q.query(`INSERT INTO projects (id, org_id, name) VALUES ($1, $2, $3)`, [id, orgId, name]);
  return id;
}

export async function getProject(q: Queryable, projectId: string): Promise<Project | undefined> {
  const { rows } = await q.query(`SELECT id, org_id, name, created_at FROM projects WHERE id = $1`, [projectId]);
  const r = rows[0];
  return r ? { id: r.id, orgId: r.org_id, name: r.name, createdAt: r.created_at } : undefined;
}

export async function existingProjectIds(q: Queryable, ids: string[]): Promise<string[]> {
  const { rows } = await q.query(`SELECT id FROM projects WHERE id = ANY($1)`, [ids]);
  return rows.map((r) => r.id);
}

/** How `token` relates to `projectId`; undefined when the project does not exist. */
export async function projectAccess(q: Queryable, token: TokenRecord, projectId: string): Promise<ProjectAccess | undefined> {
  const { rows } = await q.query(
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

/** Projects of the given organizations (at most `limit`), oldest first. */
export async function projectsOfOrgs(q: Queryable, orgIds: string[], limit: number): Promise<ScopeProject[]> {
  if (orgIds.length === 0) return [];
  const { rows } = await q.query(`SELECT org_id, id, name FROM projects WHERE org_id = ANY($1) ORDER BY created_at LIMIT $2`, [
    orgIds,
    limit,
  ]);
  return rows.map((r) => ({ orgId: r.org_id, projectId: r.id, projectName: r.name }));
}

/** Every project of the given organizations, by organization then creation. */
export async function allProjectsOfOrgs(q: Queryable, orgIds: string[]): Promise<Project[]> {
  if (orgIds.length === 0) return [];
  const { rows } = await q.query(`SELECT id, org_id, name, created_at FROM projects WHERE org_id = ANY($1) ORDER BY created_at`, [orgIds]);
  return rows.map((r) => ({ id: r.id, orgId: r.org_id, name: r.name, createdAt: r.created_at }));
}

/** A web app session's access to a project: every project of the user's organizations, with the live role. */
export async function userProjectAccess(q: Queryable, userId: string, projectId: string): Promise<ProjectAccess | undefined> {
  const { rows } = await q.query(
    `SELECT p.id, p.name, p.org_id, m.role, u.name AS user_name, u.email AS user_email
       FROM projects p
       LEFT JOIN memberships m ON m.org_id = p.org_id AND m.user_id = $2
       LEFT JOIN users u ON u.id = $2
      WHERE p.id = $1`,
    [projectId, userId],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    projectId: r.id,
    projectName: r.name,
    orgId: r.org_id,
    role: r.role,
    userName: r.user_name,
    userEmail: r.user_email,
    covered: r.role !== null,
  };
}

/** One keyset page of the projects of one organization (or of all), newest first (`page.size + 1` rows). */
export async function listProjects(q: Queryable, orgId: string | undefined, page: IdPage): Promise<Project[]> {
  const { rows } = await q.query(
    `SELECT id, org_id, name, created_at FROM projects
      WHERE ($1::text IS NULL OR org_id = $1) AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [orgId ?? null, page.before ?? null, page.size + 1],
  );
  return rows.map((r) => ({ id: r.id, orgId: r.org_id, name: r.name, createdAt: r.created_at }));
}
