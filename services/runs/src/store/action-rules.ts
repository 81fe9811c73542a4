/** SQL on action rules (the workflow-rules and action-rules families, the admin CLI's rules and the ingestion's matching). */
import { newId, type Queryable } from '@assay/db';
import type { RuleStatusName } from '@assay/contracts/runs/values';
import type { IdPage } from '@assay/service-kit';
import type { RuleRow } from '../domain/rules';

const COLUMNS = `id, project_id, name, description, operations, title_pattern, file, match_tag, tag, enabled, expires_at, created_by,
  created_at, updated_at`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
function toRule(r: any): RuleRow {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    description: r.description,
    operations: r.operations,
    titlePattern: r.title_pattern,
    file: r.file,
    matchTag: r.match_tag,
    tag: r.tag,
    enabled: r.enabled,
    expiresAt: r.expires_at,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export type NewRule = Omit<RuleRow, 'id' | 'enabled' | 'createdAt' | 'updatedAt'>;

export async function insertRule(db: Queryable, r: NewRule): Promise<string> {
  const id = newId();
  await db.query(
    `INSERT INTO action_rules (id, project_id, name, description, operations, title_pattern, file, match_tag, tag, expires_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [id, r.projectId, r.name, r.description, r.operations, r.titlePattern, r.file, r.matchTag, r.tag, r.expiresAt, r.createdBy],
  );
  return id;
}

export async function disableRule(db: Queryable, id: string, projectId?: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE action_rules SET enabled = false, updated_at = now() WHERE id = $1 AND ($2::text IS NULL OR project_id = $2)`,
    [id, projectId ?? null],
  );
  return (rowCount ?? 0) > 0;
}

/** Rules in force now (enabled, not expired). */
export async function activeRules(db: Queryable, projectId: string, now: Date): Promise<RuleRow[]> {
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM action_rules WHERE project_id = $1 AND enabled AND (expires_at IS NULL OR expires_at > $2) ORDER BY created_at`,
    [projectId, now],
  );
  return rows.map(toRule);
}

/** Derived status as SQL; `$2` is "now" (the disabled clause needs no time). */
const STATUS_SQL: Record<RuleStatusName, string> = {
  active: 'enabled AND (expires_at IS NULL OR expires_at > $2)',
  expired: 'enabled AND expires_at IS NOT NULL AND expires_at <= $2',
  disabled: 'NOT enabled',
};

export async function listRules(
  db: Queryable,
  projectId: string,
  opts: { status?: RuleStatusName; limit: number; offset: number; now: Date },
): Promise<{ total: number; rows: RuleRow[] }> {
  const params: unknown[] = [projectId];
  let where = 'project_id = $1';
  if (opts.status) {
    where += ` AND ${STATUS_SQL[opts.status]}`;
    if (opts.status !== 'disabled') params.push(opts.now);
  }
  const page = `LIMIT $${params.length + 1} OFFSET $${params.length + 2}`;
  const [count, list] = await Promise.all([
    db.query(`SELECT count(*)::int AS n FROM action_rules WHERE ${where}`, params),
    db.query(`SELECT ${COLUMNS} FROM action_rules WHERE ${where} ORDER BY created_at DESC, id ${page}`, [
      ...params,
      opts.limit,
      opts.offset,
    ]),
  ]);
  return { total: count.rows[0].n, rows: list.rows.map(toRule) };
}

/** The admin CLI's `rules`: one keyset page of a project's rules, newest first (`page.size + 1` rows). */
export async function rulesPage(db: Queryable, projectId: string, page: IdPage): Promise<RuleRow[]> {
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM action_rules WHERE project_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [projectId, page.before ?? null, page.size + 1],
  );
  return rows.map(toRule);
}

/** Windowed count of distinct quarantined tests (results marked quarantined in runs of the window). */
export async function quarantinedTests(db: Queryable, projectId: string, since: Date): Promise<number> {
  const { rows } = await db.query(
    `SELECT count(DISTINCT test_id)::int AS n FROM results WHERE project_id = $1 AND quarantined AND created_at >= $2`,
    [projectId, since],
  );
  return rows[0].n;
}

/** Tests of the project that active `skip` rules name (for reporters). */
export async function testsMatching(
  db: Queryable,
  projectId: string,
): Promise<{ id: string; file: string; titlePath: string[]; projectName: string; fullTitle: string; tags: string[] }[]> {
  const { rows } = await db.query(
    `SELECT t.id, t.file, t.title_path, t.project_name, t.full_title,
            coalesce((SELECT r.tags FROM results r WHERE r.test_id = t.id ORDER BY r.created_at DESC LIMIT 1), '{}') AS tags
       FROM tests t WHERE t.project_id = $1 ORDER BY t.file, t.full_title`,
    [projectId],
  );
  return rows.map((r) => ({
    id: r.id,
    file: r.file,
    titlePath: r.title_path,
    projectName: r.project_name,
    fullTitle: r.full_title,
    tags: r.tags,
  }));
}
