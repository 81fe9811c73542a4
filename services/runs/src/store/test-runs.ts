/** SQL on runs (the `test-runs` family's table): create with a per-project counter, lock, stats, finish, sweep, list. */
import { newId, type Queryable } from '@assay/db';
import type { FinishStatusName, RunStatusName } from '@assay/contracts/runs/values';
import type { NormMetadata } from '../ingest/normalize';

export interface RunStats {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  flaky: number;
  timedOut: number;
  interrupted: number;
  quarantined: number;
  totalAttempts: number;
  retriedTests: number;
}

export interface RunRow {
  id: string;
  projectId: string;
  orgId: string;
  counter: number;
  status: RunStatusName;
  source: RunSource;
  startTime: Date;
  endTime: Date | null;
  durationMs: number;
  lastActivityAt: Date;
  branch: string;
  environment: string;
  commitHash: string;
  commitMessage: string;
  commitAuthor: string;
  ci: Record<string, unknown>;
  extra: Record<string, unknown>;
  tags: string[];
  totalTestsExpected: number | null;
  coverage: Record<string, unknown> | null;
  reportErrors: unknown[];
  stats: RunStats;
  /** The CI build a sharded run belongs to (one run per project and build id). */
  buildId: string | null;
  /** How many shards the build has; null when not sharded. */
  shardTotal: number | null;
  /** The shards that have finished, sorted. */
  shardsFinished: number[];
}

const COLUMNS = `id, project_id, org_id, counter, status, source, start_time, end_time, duration_ms, last_activity_at, branch,
  environment, commit_hash, commit_message, commit_author, ci, extra, tags, total_tests_expected, coverage, report_errors,
  total, passed, failed, skipped, flaky, timed_out, interrupted, quarantined, total_attempts, retried_tests, build_id, shard_total,
  shards_finished`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
export function toRunRow(r: any): RunRow {
  return {
    id: r.id,
    projectId: r.project_id,
    orgId: r.org_id,
    counter: r.counter,
    status: r.status,
    source: r.source,
    startTime: r.start_time,
    endTime: r.end_time,
    durationMs: Number(r.duration_ms),
    lastActivityAt: r.last_activity_at,
    branch: r.branch,
    environment: r.environment,
    commitHash: r.commit_hash,
    commitMessage: r.commit_message,
    commitAuthor: r.commit_author,
    ci: r.ci,
    extra: r.extra,
    tags: r.tags,
    totalTestsExpected: r.total_tests_expected,
    coverage: r.coverage,
    reportErrors: r.report_errors,
    stats: {
      total: r.total,
      passed: r.passed,
      failed: r.failed,
      skipped: r.skipped,
      flaky: r.flaky,
      timedOut: r.timed_out,
      interrupted: r.interrupted,
      quarantined: r.quarantined,
      totalAttempts: r.total_attempts,
      retriedTests: r.retried_tests,
    },
    buildId: r.build_id ?? null,
    shardTotal: r.shard_total ?? null,
    shardsFinished: r.shards_finished ?? [],
  };
}

/** How a run came in: the streaming API, or a one-shot report. */
export type RunSource = 'stream' | 'playwright' | 'junit' | 'compat';

export interface NewRun {
  projectId: string;
  orgId: string;
  source: RunSource;
  metadata: NormMetadata;
  totalTests?: number;
  startTime: Date;
  createdBy: string;
  coverage?: Record<string, unknown>;
  reportErrors?: unknown[];
  buildId?: string;
  shardTotal?: number;
}

/**
 * The project's next run number. Takes the project's counter row lock until the transaction ends, so every other
 * run creation in the project waits: take it last (a one-shot report writes its tests first).
 */
async function nextCounter(db: Queryable, projectId: string): Promise<number> {
  const { rows } = await db.query(
    `INSERT INTO project_counters (project_id, last_counter) VALUES ($1, 1)
     ON CONFLICT (project_id) DO UPDATE SET last_counter = project_counters.last_counter + 1
     RETURNING last_counter`,
    [projectId],
  );
  return rows[0].last_counter;
}

/**
 * A new running run. With `counter: false` (one-shot reports) it has no number yet: `numberRun` gives it one in the
 * same transaction once its tests are written (a run without a number is never committed: see the migration).
 */
export async function insertRun(db: Queryable, run: NewRun, opts: { counter?: boolean } = {}): Promise<RunRow> {
  const counter = opts.counter === false ? null : await nextCounter(db, run.projectId);
  const m = run.metadata;
  const { rows } = await db.query(
    `INSERT INTO runs (id, project_id, org_id, counter, status, source, start_time, last_activity_at, branch, environment,
       commit_hash, commit_message, commit_author, ci, extra, tags, total_tests_expected, coverage, report_errors, created_by,
       build_id, shard_total)
     VALUES ($1, $2, $3, $4, 'running', $5, $6, now(), $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
     RETURNING ${COLUMNS}`,
    [
      newId(),
      run.projectId,
      run.orgId,
      counter,
      run.source,
      run.startTime,
      ...metadataValues(m),
      run.totalTests ?? null,
      run.coverage ? JSON.stringify(run.coverage) : null,
      JSON.stringify(run.reportErrors ?? []),
      run.createdBy,
      run.buildId ?? null,
      run.shardTotal ?? null,
    ],
  );
  return toRunRow(rows[0]);
}

/** The metadata columns branch … tags, in that order (insertRun and setRunHeader write the same ones). */
const metadataValues = (m: NormMetadata) => [
  m.branch,
  m.environment,
  m.commit.hash,
  m.commit.message,
  m.commit.author,
  JSON.stringify(m.ci),
  JSON.stringify(m.extra),
  m.tags,
];

/** What a one-shot report says about its run, known once the whole report has been read. */
export interface RunHeader {
  metadata: NormMetadata;
  totalTests: number;
  startTime: Date;
  coverage?: Record<string, unknown>;
  reportErrors: unknown[];
}

export async function setRunHeader(db: Queryable, runId: string, h: RunHeader): Promise<void> {
  const m = h.metadata;
  await db.query(
    `UPDATE runs SET start_time = $2, branch = $3, environment = $4, commit_hash = $5, commit_message = $6, commit_author = $7,
            ci = $8, extra = $9, tags = $10, total_tests_expected = $11, coverage = $12, report_errors = $13
      WHERE id = $1`,
    [
      runId,
      h.startTime,
      ...metadataValues(m),
      h.totalTests,
      h.coverage ? JSON.stringify(h.coverage) : null,
      JSON.stringify(h.reportErrors),
    ],
  );
}

/** Gives a run inserted with `counter: false` its number (the project's counter lock: see nextCounter). */
export async function numberRun(db: Queryable, run: { id: string; projectId: string }): Promise<RunRow> {
  const counter = await nextCounter(db, run.projectId);
  const { rows } = await db.query(`UPDATE runs SET counter = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [run.id, counter]);
  return toRunRow(rows[0]);
}

/** The run, locked for this transaction (ingestion into one run is serialized). */
export async function lockRun(db: Queryable, projectId: string, runId: string): Promise<RunRow | undefined> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM runs WHERE id = $1 AND project_id = $2 FOR UPDATE`, [runId, projectId]);
  return rows[0] ? toRunRow(rows[0]) : undefined;
}

/** Deletes a run; its results and their attempts go with it (the trigger runs_delete_children). Answers the results deleted. */
export async function deleteRun(db: Queryable, runId: string): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM results WHERE run_id = $1', [runId]);
  await db.query('DELETE FROM runs WHERE id = $1', [runId]);
  return rows[0].n as number;
}

/**
 * The run of a CI build, locked; the build id itself is locked first (an advisory lock held until the transaction
 * ends), so shards starting at the same moment wait for each other and only the first creates the run.
 */
export async function lockBuildRun(db: Queryable, projectId: string, buildId: string): Promise<RunRow | undefined> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [JSON.stringify(['build', projectId, buildId])]);
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM runs WHERE project_id = $1 AND build_id = $2 FOR UPDATE`, [projectId, buildId]);
  return rows[0] ? toRunRow(rows[0]) : undefined;
}

/** Records that `shard` (of `total`) has finished; the run's shard total is set by the first shard that names it. */
export async function markShardFinished(db: Queryable, runId: string, shard: number, total: number): Promise<RunRow> {
  const { rows } = await db.query(
    `UPDATE runs SET shard_total = coalesce(shard_total, $3),
            shards_finished = ARRAY(SELECT DISTINCT s FROM unnest(shards_finished || $2::int) AS s ORDER BY s),
            last_activity_at = now()
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [runId, shard, total],
  );
  return toRunRow(rows[0]);
}

/** Another shard joined the build's run: it counts as activity, and names the shard total if none was. */
export async function joinBuildRun(db: Queryable, runId: string, shardTotal: number | null): Promise<RunRow> {
  const { rows } = await db.query(
    `UPDATE runs SET shard_total = coalesce(shard_total, $2), last_activity_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [runId, shardTotal],
  );
  return toRunRow(rows[0]);
}

export async function findRun(db: Queryable, projectId: string | undefined, runId: string): Promise<RunRow | undefined> {
  const { rows } = projectId
    ? await db.query(`SELECT ${COLUMNS} FROM runs WHERE id = $1 AND project_id = $2`, [runId, projectId])
    : await db.query(`SELECT ${COLUMNS} FROM runs WHERE id = $1`, [runId]);
  return rows[0] ? toRunRow(rows[0]) : undefined;
}

/** Recomputes the run's testStats from its results (CONTRACT §9). */
export async function refreshRunStats(db: Queryable, runId: string): Promise<void> {
  await db.query(
    `UPDATE runs SET
       (total, passed, failed, skipped, flaky, timed_out, interrupted, quarantined, total_attempts, retried_tests) = (
         SELECT count(*),
                count(*) FILTER (WHERE outcome = 'expected'),
                count(*) FILTER (WHERE outcome = 'unexpected'),
                count(*) FILTER (WHERE outcome = 'skipped'),
                count(*) FILTER (WHERE outcome = 'flaky'),
                count(*) FILTER (WHERE status = 'timedOut'),
                count(*) FILTER (WHERE status = 'interrupted'),
                count(*) FILTER (WHERE quarantined),
                coalesce(sum(attempt_count), 0),
                count(*) FILTER (WHERE attempt_count > 1)
           FROM results WHERE run_id = $1),
       last_activity_at = now()
     WHERE id = $1`,
    [runId],
  );
}

/**
 * Final status: the given one, else `interrupted` when a test was interrupted, `failed` when a test that is not
 * quarantined failed or timed out, else `passed`.
 */
export async function finishRun(
  db: Queryable,
  runId: string,
  opts: { status?: FinishStatusName; endTime?: Date; durationMs?: number },
): Promise<RunRow> {
  const { rows } = await db.query(
    `WITH verdict AS (
       SELECT CASE
                WHEN $2::text IS NOT NULL THEN $2::text
                WHEN EXISTS (SELECT 1 FROM results WHERE run_id = $1 AND status = 'interrupted') THEN 'interrupted'
                WHEN EXISTS (SELECT 1 FROM results WHERE run_id = $1 AND outcome = 'unexpected' AND NOT quarantined) THEN 'failed'
                ELSE 'passed'
              END AS status)
     UPDATE runs SET status = verdict.status,
            end_time = coalesce($3::timestamptz, start_time + make_interval(secs => $4::bigint / 1000.0), greatest(now(), start_time)),
            duration_ms = greatest(0, floor(extract(epoch FROM (coalesce($3::timestamptz, start_time + make_interval(secs => $4::bigint / 1000.0), greatest(now(), start_time)) - start_time)) * 1000)),
            last_activity_at = now()
       FROM verdict
      WHERE id = $1
     RETURNING ${COLUMNS.split(',')
       .map((c) => `runs.${c.trim()}`)
       .join(', ')}`,
    [runId, opts.status ?? null, opts.endTime ?? null, opts.durationMs ?? null],
  );
  return toRunRow(rows[0]);
}

/** Running runs whose last activity is older than `cutoff`, locked, skipping those another replica holds. */
export async function lockStaleRuns(db: Queryable, cutoff: Date, limit: number): Promise<RunRow[]> {
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM runs WHERE status = 'running' AND last_activity_at < $1
      ORDER BY last_activity_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [cutoff, limit],
  );
  return rows.map(toRunRow);
}

/** A run that stopped reporting: `incomplete`, ended at its last real activity (`lastActivityAt`, as locked). */
export async function markIncomplete(db: Queryable, runId: string, lastActivityAt: Date): Promise<RunRow> {
  const { rows } = await db.query(
    `UPDATE runs SET status = 'incomplete', last_activity_at = $2::timestamptz, end_time = greatest($2, start_time),
            duration_ms = greatest(0, floor(extract(epoch FROM (greatest($2, start_time) - start_time)) * 1000))
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [runId, lastActivityAt],
  );
  return toRunRow(rows[0]);
}

export interface RunFilter {
  from?: Date;
  to?: Date;
  branch?: string;
  environment?: string;
  status?: RunStatusName;
}

export async function listRuns(
  db: Queryable,
  projectId: string,
  opts: RunFilter & { limit: number; offset: number },
): Promise<{ total: number; rows: RunRow[] }> {
  const where = `project_id = $1 AND ($2::timestamptz IS NULL OR start_time >= $2) AND ($3::timestamptz IS NULL OR start_time <= $3)
    AND ($4::text IS NULL OR branch = $4) AND ($5::text IS NULL OR environment = $5) AND ($6::text IS NULL OR status = $6)`;
  const args = [projectId, opts.from ?? null, opts.to ?? null, opts.branch ?? null, opts.environment ?? null, opts.status ?? null];
  // Without a filter the total is the project's count, which the database keeps (the migration project-run-counts):
  // count(*) read every run of the project on every page.
  const filtered = args.slice(1).some((a) => a !== null);
  const [count, list] = await Promise.all([
    filtered
      ? db.query(`SELECT count(*)::int AS n FROM runs WHERE ${where}`, args)
      : db.query(`SELECT coalesce((SELECT runs FROM project_run_counts WHERE project_id = $1), 0) AS n`, [projectId]),
    db.query(`SELECT ${COLUMNS} FROM runs WHERE ${where} ORDER BY start_time DESC, counter DESC LIMIT $7 OFFSET $8`, [
      ...args,
      opts.limit,
      opts.offset,
    ]),
  ]);
  return { total: count.rows[0].n, rows: list.rows.map(toRunRow) };
}

/**
 * Keyset scan of runs for other services' rebuilds: one project by counter (its unique index), or every project
 * by id (the primary key). `after` is the last counter / id of the previous page.
 */
export async function scanRuns(db: Queryable, projectId: string | undefined, after: string | undefined, limit: number): Promise<RunRow[]> {
  if (projectId) {
    const { rows } = await db.query(`SELECT ${COLUMNS} FROM runs WHERE project_id = $1 AND counter > $2 ORDER BY counter LIMIT $3`, [
      projectId,
      after === undefined ? 0 : Number.parseInt(after, 10),
      limit,
    ]);
    return rows.map(toRunRow);
  }
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM runs WHERE id > $1 ORDER BY id LIMIT $2`, [after ?? '', limit]);
  return rows.map(toRunRow);
}
