/** SQL for manual test cases, their comments and their linked automated tests. */
import { newId, type PoolClient, type Queryable } from '@assay/db';
import type {
  AutomationStatusName,
  BehaviorName,
  CaseStatusName,
  CaseTypeName,
  GherkinKeywordName,
  LayerName,
  LinkSourceName,
  PriorityName,
  SeverityName,
  StepsTypeName,
} from '@assay/contracts/manual-testing/values';
import { caseNumberOf, lastModifiedOf, likePattern, Where, type Author, type UserSnapshot } from './common';

export interface ClassicStepData {
  action: string;
  data: string;
  expectedResult: string;
  subSteps: ClassicStepData[];
}

export interface GherkinStepData {
  keyword: GherkinKeywordName;
  text: string;
  subSteps: GherkinStepData[];
}

export interface CaseFields {
  title: string;
  description: string;
  preconditions: string;
  postconditions: string;
  status: CaseStatusName;
  severity: SeverityName;
  priority: PriorityName;
  type: CaseTypeName;
  layer: LayerName;
  behavior: BehaviorName;
  automationStatus: AutomationStatusName;
  isFlaky: boolean;
  isMuted: boolean;
  toBeAutomated: boolean;
  stepsType: StepsTypeName;
  classicSteps: ClassicStepData[];
  gherkinSteps: GherkinStepData[];
  tags: string[];
  customFields: Record<string, string>;
  issues: string[];
}

export interface CaseRow extends CaseFields {
  id: string;
  projectId: string;
  number: number;
  suiteId: string | null;
  suiteName: string | null;
  lastModifiedBy: UserSnapshot | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CommentRow {
  id: string;
  caseId: string;
  text: string;
  author: UserSnapshot | null;
  createdAt: Date;
}

export interface LinkedTestRow {
  caseId: string;
  testId: string;
  fullTitle: string;
  displayTitle: string | null;
  source: LinkSourceName;
  linkedAt: Date;
}

const SELECT_CASE = `
  SELECT c.*, s.name AS suite_name
    FROM cases c LEFT JOIN suites s ON s.id = c.suite_id`;

function toRow(r: Record<string, unknown>): CaseRow {
  return {
    id: r.id as string,
    projectId: r.project_id as string,
    number: r.number as number,
    suiteId: r.suite_id as string | null,
    suiteName: r.suite_name as string | null,
    title: r.title as string,
    description: r.description as string,
    preconditions: r.preconditions as string,
    postconditions: r.postconditions as string,
    status: r.status as CaseStatusName,
    severity: r.severity as SeverityName,
    priority: r.priority as PriorityName,
    type: r.type as CaseTypeName,
    layer: r.layer as LayerName,
    behavior: r.behavior as BehaviorName,
    automationStatus: r.automation_status as AutomationStatusName,
    isFlaky: r.is_flaky as boolean,
    isMuted: r.is_muted as boolean,
    toBeAutomated: r.to_be_automated as boolean,
    stepsType: r.steps_type as StepsTypeName,
    classicSteps: r.classic_steps as ClassicStepData[],
    gherkinSteps: r.gherkin_steps as GherkinStepData[],
    tags: r.tags as string[],
    customFields: r.custom_fields as Record<string, string>,
    issues: r.issues as string[],
    lastModifiedBy: lastModifiedOf(r),
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
  };
}

/** A case of the project by `_id` or `TC-<n>`; `forUpdate` locks its row. */
export async function findCase(q: Queryable, projectId: string, ref: string, forUpdate = false): Promise<CaseRow | undefined> {
  const n = caseNumberOf(ref);
  const where = n !== undefined ? 'c.number = $2' : 'c.id = $2';
  const { rows } = await q.query(`${SELECT_CASE} WHERE c.project_id = $1 AND ${where}${forUpdate ? ' FOR UPDATE OF c' : ''}`, [
    projectId,
    n ?? ref,
  ]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

/** Hands out the next case number of the project. Row-locks the counter until the transaction ends. */
export async function nextCaseNumber(c: PoolClient, projectId: string): Promise<number> {
  const { rows } = await c.query(
    `INSERT INTO case_counters (project_id, last_number) VALUES ($1, 1)
     ON CONFLICT (project_id) DO UPDATE SET last_number = case_counters.last_number + 1
     RETURNING last_number`,
    [projectId],
  );
  return rows[0].last_number as number;
}

function fieldParams(f: CaseFields): unknown[] {
  return [
    f.title,
    f.description,
    f.preconditions,
    f.postconditions,
    f.status,
    f.severity,
    f.priority,
    f.type,
    f.layer,
    f.behavior,
    f.automationStatus,
    f.isFlaky,
    f.isMuted,
    f.toBeAutomated,
    f.stepsType,
    JSON.stringify(f.classicSteps),
    JSON.stringify(f.gherkinSteps),
    f.tags,
    JSON.stringify(f.customFields),
    f.issues,
  ];
}

export async function insertCase(
  c: PoolClient,
  k: { projectId: string; number: number; suiteId: string | null; fields: CaseFields; author: Author },
): Promise<string> {
  const id = newId();
  await c.query(
    `INSERT INTO cases (title, description, preconditions, postconditions, status, severity, priority, type, layer, behavior,
                        automation_status, is_flaky, is_muted, to_be_automated, steps_type, classic_steps, gherkin_steps,
                        tags, custom_fields, issues,
                        id, project_id, number, suite_id, created_by, last_modified_by_id, last_modified_by_name, last_modified_by_email)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
             $21, $22, $23, $24, $25, $25, $26, $27)`,
    [...fieldParams(k.fields), id, k.projectId, k.number, k.suiteId, k.author.id, k.author.name, k.author.email],
  );
  return id;
}

export async function updateCase(c: PoolClient, id: string, fields: CaseFields, author: Author): Promise<void> {
  await c.query(
    `UPDATE cases SET title = $1, description = $2, preconditions = $3, postconditions = $4, status = $5, severity = $6,
                      priority = $7, type = $8, layer = $9, behavior = $10, automation_status = $11, is_flaky = $12,
                      is_muted = $13, to_be_automated = $14, steps_type = $15, classic_steps = $16, gherkin_steps = $17,
                      tags = $18, custom_fields = $19, issues = $20,
                      last_modified_by_id = $22, last_modified_by_name = $23, last_modified_by_email = $24, updated_at = now()
      WHERE id = $21`,
    [...fieldParams(fields), id, author.id, author.name, author.email],
  );
}

export async function insertComments(c: PoolClient, caseId: string, texts: string[], author: Author): Promise<void> {
  let seq = 0;
  for (const text of texts) {
    await c.query(
      `INSERT INTO case_comments (id, case_id, seq, text, author_id, author_name, author_email) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [newId(), caseId, seq++, text, author.id, author.name, author.email],
    );
  }
}

export async function commentsOf(q: Queryable, caseIds: string[]): Promise<CommentRow[]> {
  if (caseIds.length === 0) return [];
  const { rows } = await q.query(
    `SELECT id, case_id, text, author_id, author_name, author_email, created_at FROM case_comments
      WHERE case_id = ANY($1) ORDER BY created_at, seq`,
    [caseIds],
  );
  return rows.map((r) => ({
    id: r.id,
    caseId: r.case_id,
    text: r.text,
    author: r.author_name ? { id: r.author_id ?? '', name: r.author_name, email: r.author_email ?? '' } : null,
    createdAt: r.created_at,
  }));
}

export async function linkedTestsOf(q: Queryable, caseIds: string[]): Promise<LinkedTestRow[]> {
  if (caseIds.length === 0) return [];
  const { rows } = await q.query(
    `SELECT case_id, test_id, full_title, display_title, source, linked_at FROM case_linked_tests
      WHERE case_id = ANY($1) ORDER BY linked_at, test_id`,
    [caseIds],
  );
  return rows.map((r) => ({
    caseId: r.case_id,
    testId: r.test_id,
    fullTitle: r.full_title,
    displayTitle: r.display_title,
    source: r.source,
    linkedAt: r.linked_at,
  }));
}

/** Links an automated test to a case; an existing link keeps its source and time and gets the new titles. */
export async function upsertLinkedTest(
  q: Queryable,
  l: { caseId: string; testId: string; fullTitle: string; displayTitle: string | null; source: LinkSourceName },
): Promise<boolean> {
  const { rows } = await q.query(
    `INSERT INTO case_linked_tests (case_id, test_id, full_title, display_title, source) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (case_id, test_id) DO UPDATE SET full_title = EXCLUDED.full_title, display_title = EXCLUDED.display_title
     RETURNING (xmax = 0) AS created`,
    [l.caseId, l.testId, l.fullTitle, l.displayTitle, l.source],
  );
  return rows[0].created as boolean;
}

export interface CaseFilter {
  suiteId?: string;
  status?: CaseStatusName;
  priority?: PriorityName;
  severity?: SeverityName;
  type?: CaseTypeName;
  layer?: LayerName;
  behavior?: BehaviorName;
  automationStatus?: AutomationStatusName;
  tags?: string[];
  search?: string;
}

function caseWhere(projectId: string, f: CaseFilter): Where {
  const w = new Where().add('c.project_id = $?', projectId);
  if (f.suiteId !== undefined) w.add('c.suite_id = $?', f.suiteId);
  if (f.status !== undefined) w.add('c.status = $?', f.status);
  if (f.priority !== undefined) w.add('c.priority = $?', f.priority);
  if (f.severity !== undefined) w.add('c.severity = $?', f.severity);
  if (f.type !== undefined) w.add('c.type = $?', f.type);
  if (f.layer !== undefined) w.add('c.layer = $?', f.layer);
  if (f.behavior !== undefined) w.add('c.behavior = $?', f.behavior);
  if (f.automationStatus !== undefined) w.add('c.automation_status = $?', f.automationStatus);
  if (f.tags !== undefined && f.tags.length > 0) w.add('c.tags && $?::text[]', f.tags);
  if (f.search !== undefined && f.search.trim() !== '') {
    const n = caseNumberOf(f.search);
    if (n !== undefined) w.add(`(c.number = $? OR c.title ILIKE $?)`, n, likePattern(f.search.trim()));
    else w.add(`c.title ILIKE $?`, likePattern(f.search.trim()));
  }
  return w;
}

export async function listCases(
  q: Queryable,
  projectId: string,
  f: CaseFilter,
  limit: number,
  offset: number,
): Promise<{ rows: CaseRow[]; total: number }> {
  const w = caseWhere(projectId, f);
  const whereSql = w.sql;
  const countParams = [...w.params];
  const pageSql = `${SELECT_CASE} ${whereSql} ORDER BY c.number LIMIT ${w.next(limit)} OFFSET ${w.next(offset)}`;
  const [count, page] = await Promise.all([
    q.query(`SELECT count(*) AS n FROM cases c ${whereSql}`, countParams),
    q.query(pageSql, w.params),
  ]);
  return { rows: page.rows.map(toRow), total: count.rows[0].n as number };
}

/** Ids of the suites given and of every suite below them (same project). */
export async function suiteSubtreeIds(q: Queryable, projectId: string, suiteIds: string[]): Promise<string[]> {
  const { rows } = await q.query(
    `WITH RECURSIVE tree AS (
        SELECT id FROM suites WHERE project_id = $1 AND id = ANY($2)
        UNION
        SELECT s.id FROM suites s JOIN tree t ON s.parent_id = t.id
     ) SELECT id FROM tree`,
    [projectId, suiteIds],
  );
  return rows.map((r) => r.id as string);
}

/**
 * The cases of a run selection, in case-number order: every case of the project (`all`: spec §4.4 "includes
 * every case", drafts and deprecated ones too), or the active cases of the given suites and (with
 * `includeUnsorted`) of no suite, plus the cases named explicitly whatever their status.
 */
export async function selectCaseIds(
  q: Queryable,
  projectId: string,
  sel: { all: boolean; suiteIds: string[]; includeUnsorted: boolean; caseIds: string[] },
): Promise<string[]> {
  const w = new Where().add('project_id = $?', projectId);
  if (!sel.all) {
    const active: string[] = [];
    if (sel.suiteIds.length > 0) active.push(`suite_id = ANY(${w.next(sel.suiteIds)})`);
    if (sel.includeUnsorted) active.push('suite_id IS NULL');
    const ors = [`id = ANY(${w.next(sel.caseIds)})`];
    if (active.length > 0) ors.push(`(status = 'active' AND (${active.join(' OR ')}))`);
    w.add(`(${ors.join(' OR ')})`);
  }
  const { rows } = await q.query(`SELECT id FROM cases ${w.sql} ORDER BY number`, w.params);
  return rows.map((r) => r.id as string);
}

/** Resolves case refs (`_id` or `TC-<n>`) of the project: ref → case id (absent when unknown). */
export async function resolveCaseRefs(q: Queryable, projectId: string, refs: string[]): Promise<Map<string, string>> {
  const ids = refs.filter((r) => caseNumberOf(r) === undefined);
  const numbers = refs.map(caseNumberOf).filter((n): n is number => n !== undefined);
  const { rows } = await q.query(`SELECT id, number FROM cases WHERE project_id = $1 AND (id = ANY($2) OR number = ANY($3::int[]))`, [
    projectId,
    ids,
    numbers,
  ]);
  const out = new Map<string, string>();
  for (const ref of refs) {
    const n = caseNumberOf(ref);
    const hit = rows.find((r) => (n !== undefined ? r.number === n : r.id === ref));
    if (hit) out.set(ref, hit.id as string);
  }
  return out;
}
