/** SQL for manual runs, the cases they hold and each case's verdict in the run. */
import { newId, type PoolClient, type Queryable } from '@assay/db';
import type { RecordStatusName, SelectionModeName, VerdictName } from '@assay/contracts/manual-testing/values';
import { caseNumberOf, lastModifiedOf, Where, type Author, type UserSnapshot } from './common';
import type { LinkedIssueData } from './releases';

export interface RunLinkData {
  title: string;
  url: string;
}

export interface RunFields {
  name: string;
  note: string;
  environment: string | null;
  releaseId: string | null;
  state: string | null;
  selectionMode: SelectionModeName;
  includeUnsorted: boolean;
  forecast: number | null;
  tags: string[];
  linkedIssues: LinkedIssueData[];
  links: RunLinkData[];
  status: RecordStatusName;
  closedAt: Date | null;
}

export interface RunRow extends RunFields {
  id: string;
  projectId: string;
  lastModifiedBy: UserSnapshot | null;
  createdAt: Date;
  updatedAt: Date;
}

export type RunStatsRow = Record<'total' | VerdictName, number>;

function toRow(r: Record<string, unknown>): RunRow {
  return {
    id: r.id as string,
    projectId: r.project_id as string,
    name: r.name as string,
    note: r.note as string,
    environment: r.environment as string | null,
    releaseId: r.release_id as string | null,
    state: r.state as string | null,
    selectionMode: r.selection_mode as SelectionModeName,
    includeUnsorted: r.include_unsorted as boolean,
    forecast: r.forecast as number | null,
    tags: r.tags as string[],
    linkedIssues: r.linked_issues as LinkedIssueData[],
    links: r.links as RunLinkData[],
    status: r.status as RecordStatusName,
    closedAt: r.closed_at as Date | null,
    lastModifiedBy: lastModifiedOf(r),
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
  };
}

function params(f: RunFields): unknown[] {
  return [
    f.name,
    f.note,
    f.environment,
    f.releaseId,
    f.state,
    f.selectionMode,
    f.includeUnsorted,
    f.forecast,
    f.tags,
    JSON.stringify(f.linkedIssues),
    JSON.stringify(f.links),
    f.status,
    f.closedAt,
  ];
}

export async function findRun(q: Queryable, projectId: string, id: string, forUpdate = false): Promise<RunRow | undefined> {
  const { rows } = await q.query(`SELECT * FROM manual_runs WHERE project_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [
    projectId,
    id,
  ]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

export async function insertRun(c: PoolClient, projectId: string, f: RunFields, author: Author): Promise<string> {
  const id = newId();
  await c.query(
    `INSERT INTO manual_runs (name, note, environment, release_id, state, selection_mode, include_unsorted, forecast, tags,
                              linked_issues, links, status, closed_at,
                              id, project_id, created_by, last_modified_by_id, last_modified_by_name, last_modified_by_email)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16, $17, $18)`,
    [...params(f), id, projectId, author.id, author.name, author.email],
  );
  return id;
}

export async function updateRun(c: PoolClient, id: string, f: RunFields, author: Author): Promise<void> {
  await c.query(
    `UPDATE manual_runs SET name = $1, note = $2, environment = $3, release_id = $4, state = $5, selection_mode = $6,
                            include_unsorted = $7, forecast = $8, tags = $9, linked_issues = $10, links = $11, status = $12,
                            closed_at = $13,
                            last_modified_by_id = $15, last_modified_by_name = $16, last_modified_by_email = $17, updated_at = now()
      WHERE id = $14`,
    [...params(f), id, author.id, author.name, author.email],
  );
}

/** Adds cases to a run after the ones it holds (cases already in it are kept as they are). */
export async function addRunCases(c: PoolClient, runId: string, caseIds: string[]): Promise<void> {
  if (caseIds.length === 0) return;
  await c.query(
    `INSERT INTO run_cases (id, run_id, case_id, position)
     SELECT x.id, $1, x.case_id, (SELECT coalesce(max(position), 0) FROM run_cases WHERE run_id = $1) + x.ord
       FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS x(id, case_id, ord)
     ON CONFLICT (run_id, case_id) DO NOTHING`,
    [runId, caseIds.map(() => newId()), caseIds],
  );
}

export async function statsOf(q: Queryable, runIds: string[]): Promise<Map<string, RunStatsRow>> {
  const out = new Map<string, RunStatsRow>();
  for (const id of runIds) out.set(id, { total: 0, untested: 0, passed: 0, failed: 0, blocked: 0, skipped: 0, retest: 0 });
  if (runIds.length === 0) return out;
  const { rows } = await q.query(`SELECT run_id, result, count(*) AS n FROM run_cases WHERE run_id = ANY($1) GROUP BY run_id, result`, [
    runIds,
  ]);
  for (const r of rows) {
    const s = out.get(r.run_id)!;
    s[r.result as keyof RunStatsRow] = r.n;
    s.total += r.n;
  }
  return out;
}

export async function listRuns(
  q: Queryable,
  projectId: string,
  f: { status?: RecordStatusName },
  limit: number,
  offset: number,
): Promise<{ rows: RunRow[]; total: number }> {
  const w = new Where().add('project_id = $?', projectId);
  if (f.status !== undefined) w.add('status = $?', f.status);
  const whereSql = w.sql;
  const countParams = [...w.params];
  const pageSql = `SELECT * FROM manual_runs ${whereSql} ORDER BY created_at DESC, id DESC LIMIT ${w.next(limit)} OFFSET ${w.next(offset)}`;
  const [count, page] = await Promise.all([
    q.query(`SELECT count(*) AS n FROM manual_runs ${whereSql}`, countParams),
    q.query(pageSql, w.params),
  ]);
  return { rows: page.rows.map(toRow), total: count.rows[0].n as number };
}

// ---- run cases

export interface StepResultData {
  order: number;
  status: VerdictName;
  comment: string;
}

export interface RunCaseFields {
  result: VerdictName;
  assignee: UserSnapshot | null;
  elapsed: number | null;
  comment: string;
  linkedIssues: LinkedIssueData[];
  stepResults: StepResultData[];
}

export interface RunCaseRow extends RunCaseFields {
  id: string;
  runId: string;
  caseId: string;
  caseNumber: number;
  caseTitle: string;
  suiteId: string | null;
  suiteName: string | null;
  updatedAt: Date;
}

const SELECT_RUN_CASE = `
  SELECT rc.*, c.number AS case_number, c.title AS case_title, c.suite_id, s.name AS suite_name
    FROM run_cases rc JOIN cases c ON c.id = rc.case_id LEFT JOIN suites s ON s.id = c.suite_id`;

function toRunCase(r: Record<string, unknown>): RunCaseRow {
  return {
    id: r.id as string,
    runId: r.run_id as string,
    caseId: r.case_id as string,
    caseNumber: r.case_number as number,
    caseTitle: r.case_title as string,
    suiteId: r.suite_id as string | null,
    suiteName: r.suite_name as string | null,
    result: r.result as VerdictName,
    assignee: r.assignee_id
      ? { id: r.assignee_id as string, name: (r.assignee_name as string) ?? '', email: (r.assignee_email as string) ?? '' }
      : null,
    elapsed: r.elapsed as number | null,
    comment: r.comment as string,
    linkedIssues: r.linked_issues as LinkedIssueData[],
    stepResults: r.step_results as StepResultData[],
    updatedAt: r.updated_at as Date,
  };
}

/** A case of the run by run-case id, case `_id` or `TC-<n>`. */
export async function findRunCase(q: Queryable, runId: string, ref: string, forUpdate = false): Promise<RunCaseRow | undefined> {
  const n = caseNumberOf(ref);
  const where = n !== undefined ? 'c.number = $2' : '(rc.id = $2 OR rc.case_id = $2)';
  const { rows } = await q.query(`${SELECT_RUN_CASE} WHERE rc.run_id = $1 AND ${where}${forUpdate ? ' FOR UPDATE OF rc' : ''}`, [
    runId,
    n ?? ref,
  ]);
  return rows[0] ? toRunCase(rows[0]) : undefined;
}

export async function updateRunCase(c: PoolClient, id: string, f: RunCaseFields): Promise<void> {
  await c.query(
    `UPDATE run_cases SET result = $2, assignee_id = $3, assignee_name = $4, assignee_email = $5, elapsed = $6, comment = $7,
                          linked_issues = $8, step_results = $9, updated_at = now()
      WHERE id = $1`,
    [
      id,
      f.result,
      f.assignee?.id ?? null,
      f.assignee?.name ?? null,
      f.assignee?.email ?? null,
      f.elapsed,
      f.comment,
      JSON.stringify(f.linkedIssues),
      JSON.stringify(f.stepResults),
    ],
  );
}

export async function listRunCases(
  q: Queryable,
  runId: string,
  f: { result?: VerdictName; assignee?: string },
  limit: number,
  offset: number,
): Promise<{ rows: RunCaseRow[]; total: number }> {
  const w = new Where().add('rc.run_id = $?', runId);
  if (f.result !== undefined) w.add('rc.result = $?', f.result);
  if (f.assignee !== undefined) {
    if (f.assignee.toLowerCase() === 'none') w.add('rc.assignee_id IS NULL');
    else w.add('(rc.assignee_id = $? OR lower(rc.assignee_email) = lower($?))', f.assignee, f.assignee);
  }
  const whereSql = w.sql;
  const countParams = [...w.params];
  const pageSql = `${SELECT_RUN_CASE} ${whereSql} ORDER BY rc.position LIMIT ${w.next(limit)} OFFSET ${w.next(offset)}`;
  const [count, page] = await Promise.all([
    q.query(`SELECT count(*) AS n FROM run_cases rc ${whereSql}`, countParams),
    q.query(pageSql, w.params),
  ]);
  return { rows: page.rows.map(toRunCase), total: count.rows[0].n as number };
}
