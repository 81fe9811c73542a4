/** SQL reads of results and attempts (the `test-cases` family's tables; ingestion writes them, store/ingest.ts). */
import type { Queryable, Row } from '@assay/db';
import type { AttachmentJson, SourceLocation, StepJson, TestErrorJson } from '@assay/contracts/runs/debug-bundle';
import type { AttemptStatusName, TestOutcomeName, TestStatusName } from '@assay/contracts/runs/values';

/** The public status of a result (TEST_STATUSES), from its outcome and last attempt's status. */
export const PUBLIC_STATUS_SQL = `CASE WHEN r.outcome = 'flaky' THEN 'flaky'
  WHEN r.outcome = 'skipped' THEN (CASE WHEN r.status = 'interrupted' THEN 'interrupted' ELSE 'skipped' END)
  WHEN r.outcome = 'expected' THEN 'passed'
  WHEN r.status = 'timedOut' THEN 'timedOut'
  WHEN r.status = 'interrupted' THEN 'interrupted'
  ELSE 'failed' END`;

export interface ResultRow {
  id: string;
  runId: string;
  projectId: string;
  testId: string;
  seq: number;
  file: string;
  titlePath: string[];
  projectName: string;
  expectedStatus: AttemptStatusName;
  status: AttemptStatusName;
  outcome: TestOutcomeName;
  publicStatus: TestStatusName;
  durationMs: number;
  attemptCount: number;
  quarantined: boolean;
  tags: string[];
  annotations: { type: string; description?: string }[];
  location: SourceLocation | null;
  errorMessage: string | null;
  errorGroupId: string | null;
  startedAt: Date | null;
}

const COLUMNS = `r.id, r.run_id, r.project_id, r.test_id, r.seq, r.file, r.title_path, r.project_name, r.expected_status, r.status,
  r.outcome, ${PUBLIC_STATUS_SQL} AS public_status, r.duration_ms, r.attempt_count, r.quarantined, r.tags, r.annotations, r.location,
  r.error_message, r.error_group_id, r.started_at`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
export function toResultRow(r: any): ResultRow {
  return {
    id: r.id,
    runId: r.run_id,
    projectId: r.project_id,
    testId: r.test_id,
    seq: r.seq,
    file: r.file,
    titlePath: r.title_path,
    projectName: r.project_name,
    expectedStatus: r.expected_status,
    status: r.status,
    outcome: r.outcome,
    publicStatus: r.public_status,
    durationMs: Number(r.duration_ms),
    attemptCount: r.attempt_count,
    quarantined: r.quarantined,
    tags: r.tags,
    annotations: r.annotations,
    location: r.location,
    errorMessage: r.error_message,
    errorGroupId: r.error_group_id,
    startedAt: r.started_at,
  };
}

export async function listRunResults(
  db: Queryable,
  runId: string,
  opts: { status?: TestStatusName; limit: number; offset: number },
): Promise<{ total: number; rows: ResultRow[] }> {
  const where = `r.run_id = $1 AND ($2::text IS NULL OR ${PUBLIC_STATUS_SQL} = $2)`;
  const [count, list] = await Promise.all([
    db.query(`SELECT count(*)::int AS n FROM results r WHERE ${where}`, [runId, opts.status ?? null]),
    db.query(`SELECT ${COLUMNS} FROM results r WHERE ${where} ORDER BY r.seq LIMIT $3 OFFSET $4`, [
      runId,
      opts.status ?? null,
      opts.limit,
      opts.offset,
    ]),
  ]);
  return { total: count.rows[0].n, rows: list.rows.map(toResultRow) };
}

/**
 * What the run detail needs without its sections: how many results the run has, and the status and first error of
 * each failed one (their categories). Not every row: a run may hold 100,000 results.
 */
export async function runFailureCounts(
  db: Queryable,
  runId: string,
): Promise<{ completed: number; failures: Pick<ResultRow, 'status' | 'errorMessage'>[] }> {
  const [count, failed] = await Promise.all([
    db.query('SELECT count(*)::int AS n FROM results WHERE run_id = $1', [runId]),
    db.query(`SELECT status, error_message FROM results WHERE run_id = $1 AND outcome = 'unexpected'`, [runId]),
  ]);
  return { completed: count.rows[0].n, failures: failed.rows.map((r) => ({ status: r.status, errorMessage: r.error_message })) };
}

export async function allRunResults(db: Queryable, runId: string): Promise<ResultRow[]> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM results r WHERE r.run_id = $1 ORDER BY r.seq`, [runId]);
  return rows.map(toResultRow);
}

/** What a rollup of a result reads (RunsService.ListRunResults' ROLLUP view). */
export type RollupResultRow = Pick<ResultRow, 'testId' | 'file' | 'titlePath' | 'projectName' | 'outcome' | 'durationMs' | 'tags'>;

/** A result as RunsService.ListRunResults answers it in full: no debug bundle's parts. */
export type ScannedResultRow = RollupResultRow &
  Pick<ResultRow, 'id' | 'runId' | 'projectId' | 'status' | 'attemptCount' | 'quarantined' | 'errorMessage' | 'errorGroupId'>;

/** ListRunResults' views and the rows each reads. */
export interface ResultViews {
  rollup: RollupResultRow;
  full: ScannedResultRow;
}

// Only what the answer holds: the annotations' and location's JSON and the start time, parsed for every row and then
// dropped, cost the runs service a quarter of its CPU in a rebuild of the read model.
const ROLLUP_COLUMNS = 'r.test_id, r.file, r.title_path, r.project_name, r.outcome, r.duration_ms, r.tags';
const VIEW_COLUMNS: Record<keyof ResultViews, string> = {
  rollup: ROLLUP_COLUMNS,
  full: `${ROLLUP_COLUMNS}, r.id, r.run_id, r.project_id, r.status, r.attempt_count, r.quarantined, r.error_message, r.error_group_id`,
};

const toRollupRow = (r: Row): RollupResultRow => ({
  testId: r.test_id,
  file: r.file,
  titlePath: r.title_path,
  projectName: r.project_name,
  outcome: r.outcome,
  durationMs: Number(r.duration_ms),
  tags: r.tags,
});

const toScannedRow = (r: Row): ScannedResultRow => ({
  ...toRollupRow(r),
  id: r.id,
  runId: r.run_id,
  projectId: r.project_id,
  status: r.status,
  attemptCount: r.attempt_count,
  quarantined: r.quarantined,
  errorMessage: r.error_message,
  errorGroupId: r.error_group_id,
});

const VIEW_ROWS: { [V in keyof ResultViews]: (r: Row) => ResultViews[V] } = { rollup: toRollupRow, full: toScannedRow };

/**
 * One keyset page of a run's results: those numbered `afterSeq` + 1 to `afterSeq` + `numbers`, in order, and the run's
 * highest number (-1: none), which says whether more follow. A window of numbers rather than `LIMIT`: Postgres
 * estimates a run's rows from the table's statistics, which know nothing of a run just written, and for a large one
 * chose to read and sort every row of the run for each page (79 ms and a 14 MB sort on disk per page of 5,000 of a
 * 50,000-result run, against 3 ms in index order). The window bounds a page to its own rows whatever the plan. Numbers
 * have gaps (a test sent twice keeps its first), so a page may hold fewer rows, even none, while more follow.
 */
export async function resultsAfter<V extends keyof ResultViews>(
  db: Queryable,
  runId: string,
  afterSeq: number,
  numbers: number,
  view: V,
): Promise<{ rows: ResultViews[V][]; maxSeq: number }> {
  const [page, last] = await Promise.all([
    db.query(`SELECT ${VIEW_COLUMNS[view]} FROM results r WHERE r.run_id = $1 AND r.seq > $2 AND r.seq <= $3 ORDER BY r.seq`, [
      runId,
      afterSeq,
      afterSeq + numbers,
    ]),
    db.query(`SELECT seq FROM results WHERE run_id = $1 ORDER BY seq DESC LIMIT 1`, [runId]),
  ]);
  return { rows: page.rows.map(VIEW_ROWS[view]), maxSeq: last.rows[0]?.seq ?? -1 };
}

/** A run's spec files over all its results, in the order they first appear. */
export async function runSpecFiles(db: Queryable, runId: string) {
  const { rows } = await db.query(
    `SELECT file, count(*)::int AS total,
            count(*) FILTER (WHERE outcome = 'expected')::int AS passed,
            count(*) FILTER (WHERE outcome = 'unexpected')::int AS failed,
            count(*) FILTER (WHERE outcome = 'flaky')::int AS flaky,
            count(*) FILTER (WHERE outcome = 'skipped')::int AS skipped,
            coalesce(sum(duration_ms), 0)::bigint AS duration_ms
       FROM results WHERE run_id = $1 GROUP BY file ORDER BY min(seq)`,
    [runId],
  );
  return rows.map((r) => ({
    file: r.file as string,
    total: r.total as number,
    passed: r.passed as number,
    failed: r.failed as number,
    flaky: r.flaky as number,
    skipped: r.skipped as number,
    durationMs: Number(r.duration_ms),
  }));
}

/** The first `limit` results of a run in report order, only the columns the run page lists. */
export async function runRows(db: Queryable, runId: string, limit: number) {
  const { rows } = await db.query(
    `SELECT r.id, r.title_path, r.file, r.project_name, ${PUBLIC_STATUS_SQL} AS public_status, r.duration_ms, r.attempt_count,
            r.quarantined, CASE WHEN r.outcome IN ('unexpected', 'flaky') THEN r.error_group_id END AS error_group_id
       FROM results r WHERE r.run_id = $1 ORDER BY r.seq LIMIT $2`,
    [runId, limit],
  );
  return rows.map((r) => ({
    id: r.id as string,
    titlePath: r.title_path as string[],
    file: r.file as string,
    projectName: r.project_name as string,
    publicStatus: r.public_status as TestStatusName,
    durationMs: Number(r.duration_ms),
    attemptCount: r.attempt_count as number,
    quarantined: r.quarantined as boolean,
    errorGroupId: r.error_group_id as string | null,
  }));
}

export async function findResult(db: Queryable, projectId: string, id: string): Promise<ResultRow | undefined> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM results r WHERE r.id = $1 AND r.project_id = $2`, [id, projectId]);
  return rows[0] ? toResultRow(rows[0]) : undefined;
}

export interface AttemptRow {
  retry: number;
  status: AttemptStatusName;
  durationMs: number;
  startedAt: Date | null;
  workerIndex: number | null;
  errors: TestErrorJson[];
  steps: StepJson[];
  stdout: string[];
  stderr: string[];
  attachments: AttachmentJson[];
}

export async function attemptsOf(db: Queryable, resultId: string): Promise<AttemptRow[]> {
  const { rows } = await db.query(
    `SELECT retry, status, duration_ms, started_at, worker_index, errors, steps, stdout, stderr, attachments
       FROM attempts WHERE result_id = $1 ORDER BY retry`,
    [resultId],
  );
  return rows.map((r) => ({
    retry: r.retry,
    status: r.status,
    durationMs: Number(r.duration_ms),
    startedAt: r.started_at,
    workerIndex: r.worker_index,
    errors: r.errors,
    steps: r.steps,
    stdout: r.stdout,
    stderr: r.stderr,
    attachments: r.attachments,
  }));
}

/** Attachments of every attempt of a run (artifacts section). */
export async function runAttachments(db: Queryable, runId: string) {
  const { rows } = await db.query(
    `SELECT a.result_id, a.retry, r.title_path, att
       FROM results r JOIN attempts a ON a.result_id = r.id, jsonb_array_elements(a.attachments) att
      WHERE r.run_id = $1 ORDER BY r.seq, a.retry LIMIT 1000`,
    [runId],
  );
  return rows.map((r) => ({
    caseId: r.result_id as string,
    retry: r.retry as number,
    titlePath: r.title_path as string[],
    attachment: r.att as AttachmentJson,
  }));
}

export interface HistoryRow extends ResultRow {
  runCounter: number;
  runStartTime: Date;
  branch: string;
  environment: string;
  commitHash: string;
  commitMessage: string;
  commitAuthor: string;
}

const HISTORY_FROM = `FROM results r JOIN runs u ON u.id = r.run_id`;
const HISTORY_COLUMNS = `${COLUMNS}, u.counter AS run_counter, u.start_time AS run_start_time, u.branch, u.environment, u.commit_hash,
  u.commit_message, u.commit_author`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
const toHistoryRow = (r: any): HistoryRow => ({
  ...toResultRow(r),
  runCounter: r.run_counter,
  runStartTime: r.run_start_time,
  branch: r.branch,
  environment: r.environment,
  commitHash: r.commit_hash,
  commitMessage: r.commit_message,
  commitAuthor: r.commit_author,
});

/** Past results of one test (by id, or every test with that title), newest first. */
export async function testHistory(
  db: Queryable,
  projectId: string,
  opts: { testId?: string; title?: string; branch?: string; before?: Date; limit: number; offset: number },
): Promise<{ total: number; rows: HistoryRow[] }> {
  const where = `r.project_id = $1
    AND ($2::text IS NULL OR r.test_id = $2)
    AND ($3::text IS NULL OR array_to_string(r.title_path, ' › ') = $3 OR r.title_path[array_length(r.title_path, 1)] = $3)
    AND ($4::text IS NULL OR u.branch = $4)
    AND ($5::timestamptz IS NULL OR u.start_time <= $5)`;
  const args = [projectId, opts.testId ?? null, opts.title ?? null, opts.branch ?? null, opts.before ?? null];
  const [count, list] = await Promise.all([
    db.query(`SELECT count(*)::int AS n ${HISTORY_FROM} WHERE ${where}`, args),
    db.query(`SELECT ${HISTORY_COLUMNS} ${HISTORY_FROM} WHERE ${where} ORDER BY u.start_time DESC, u.counter DESC LIMIT $6 OFFSET $7`, [
      ...args,
      opts.limit,
      opts.offset,
    ]),
  ]);
  return { total: count.rows[0].n, rows: list.rows.map(toHistoryRow) };
}

export async function historySummary(db: Queryable, projectId: string, testId: string) {
  const { rows } = await db.query(
    `SELECT count(*)::int AS total,
            count(*) FILTER (WHERE p = 'passed')::int AS passed,
            count(*) FILTER (WHERE p IN ('failed', 'timedOut'))::int AS failed,
            count(*) FILTER (WHERE p = 'flaky')::int AS flaky,
            count(*) FILTER (WHERE p = 'skipped')::int AS skipped,
            count(*) FILTER (WHERE p = 'interrupted')::int AS interrupted,
            max(t) FILTER (WHERE p = 'passed') AS last_passed,
            max(t) FILTER (WHERE p IN ('failed', 'timedOut')) AS last_failed,
            max(t) FILTER (WHERE p = 'flaky') AS last_flaky
       FROM (SELECT ${PUBLIC_STATUS_SQL} AS p, u.start_time AS t ${HISTORY_FROM} WHERE r.project_id = $1 AND r.test_id = $2) x`,
    [projectId, testId],
  );
  return rows[0] as {
    total: number;
    passed: number;
    failed: number;
    skipped: number;
    flaky: number;
    interrupted: number;
    last_passed: Date | null;
    last_failed: Date | null;
    last_flaky: Date | null;
  };
}

export async function errorGroupsOf(db: Queryable, runId: string) {
  const { rows } = await db.query(
    `SELECT g.id, g.fingerprint, g.message, count(*)::int AS count,
            count(*) FILTER (WHERE r.outcome = 'unexpected')::int AS failed,
            count(*) FILTER (WHERE r.outcome = 'flaky')::int AS flaky,
            (array_agg(jsonb_build_object('caseId', r.id, 'title', array_to_string(r.title_path, ' › '), 'file', r.file,
              'projectName', r.project_name) ORDER BY r.seq))[1:10] AS tests
       FROM results r JOIN error_groups g ON g.id = r.error_group_id
      WHERE r.run_id = $1 AND r.outcome IN ('unexpected', 'flaky')
      GROUP BY g.id ORDER BY count(*) DESC, g.id`,
    [runId],
  );
  return rows as {
    id: string;
    fingerprint: string;
    message: string;
    count: number;
    failed: number;
    flaky: number;
    tests: { caseId: string; title: string; file: string; projectName: string }[];
  }[];
}

export async function tagStatsOf(db: Queryable, runId: string) {
  const { rows } = await db.query(
    `SELECT tag, count(*)::int AS total,
            count(*) FILTER (WHERE outcome = 'expected')::int AS passed,
            count(*) FILTER (WHERE outcome = 'unexpected')::int AS failed,
            count(*) FILTER (WHERE outcome = 'flaky')::int AS flaky,
            count(*) FILTER (WHERE outcome = 'skipped')::int AS skipped
       FROM results, unnest(tags) AS tag WHERE run_id = $1 GROUP BY tag ORDER BY tag`,
    [runId],
  );
  return rows;
}

export async function projectFiles(db: Queryable, projectId: string): Promise<string[]> {
  const { rows } = await db.query('SELECT DISTINCT file FROM tests WHERE project_id = $1', [projectId]);
  return rows.map((r) => r.file);
}

export async function latestRunWithFile(db: Queryable, projectId: string, file: string): Promise<string | undefined> {
  const { rows } = await db.query(
    `SELECT u.id FROM runs u WHERE u.project_id = $1 AND EXISTS (SELECT 1 FROM results r WHERE r.run_id = u.id AND r.file = $2)
      ORDER BY u.start_time DESC LIMIT 1`,
    [projectId, file],
  );
  return rows[0]?.id;
}
