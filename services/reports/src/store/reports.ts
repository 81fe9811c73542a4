/**
 * SQL of reports: created pending by CreateReport, taken by a generator under a lease, completed (the PDF
 * bytes in report_pdfs, in the same transaction as status = 'ready') or failed, read back in chunks for the
 * download, and deleted by the retention sweeper. Every time comes from the caller's clock.
 *
 * The attempt number is the fencing token: a worker may complete or release only the attempt it started, so
 * a worker that lost its lease (it stalled past REPORT_GENERATION_TIMEOUT_SECONDS and another took over)
 * can no longer change the report.
 */
import type { PoolClient, Queryable } from '@assay/db';
import type { Principal } from '@assay/service-kit';
import type { ReportStatusName } from '@assay/contracts/reports/values';

export interface ReportRow {
  id: string;
  projectId: string;
  orgId: string;
  projectName: string;
  requestedBy: Principal;
  status: ReportStatusName;
  days: number;
  fromDate: string;
  untilDate: string;
  branch: string;
  environment: string;
  tags: string[];
  fileName: string;
  sizeBytes: number;
  failureReason: string;
  attempts: number;
  leaseUntil: Date | null;
  createdAt: Date;
  completedAt: Date | null;
  expiresAt: Date;
}

const COLUMNS = `id, project_id, org_id, project_name, requested_by, status, days, to_char(from_date, 'YYYY-MM-DD') AS from_date,
                 to_char(until_date, 'YYYY-MM-DD') AS until_date, branch, environment, tags, file_name, size_bytes,
                 failure_reason, attempts, lease_until, created_at, completed_at, expires_at`;

function toRow(r: Record<string, unknown>): ReportRow {
  return {
    id: r.id as string,
    projectId: r.project_id as string,
    orgId: r.org_id as string,
    projectName: r.project_name as string,
    requestedBy: r.requested_by as Principal,
    status: r.status as ReportStatusName,
    days: r.days as number,
    fromDate: r.from_date as string,
    untilDate: r.until_date as string,
    branch: r.branch as string,
    environment: r.environment as string,
    tags: r.tags as string[],
    fileName: r.file_name as string,
    sizeBytes: r.size_bytes as number,
    failureReason: r.failure_reason as string,
    attempts: r.attempts as number,
    leaseUntil: r.lease_until as Date | null,
    createdAt: r.created_at as Date,
    completedAt: r.completed_at as Date | null,
    expiresAt: r.expires_at as Date,
  };
}

export interface NewReport {
  id: string;
  projectId: string;
  orgId: string;
  projectName: string;
  requestedBy: Principal;
  days: number;
  fromDate: string;
  untilDate: string;
  branch: string;
  environment: string;
  tags: string[];
  fileName: string;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertReport(q: Queryable, r: NewReport): Promise<ReportRow> {
  const { rows } = await q.query(
    `INSERT INTO reports (id, project_id, org_id, project_name, requested_by, days, from_date, until_date, branch, environment, tags,
                          file_name, available_at, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14)
     RETURNING ${COLUMNS}`,
    [
      r.id,
      r.projectId,
      r.orgId,
      r.projectName,
      JSON.stringify(r.requestedBy),
      r.days,
      r.fromDate,
      r.untilDate,
      r.branch,
      r.environment,
      r.tags,
      r.fileName,
      r.createdAt,
      r.expiresAt,
    ],
  );
  return toRow(rows[0]);
}

/** A report of the project (another project's report is as absent as an unknown id). */
export async function findReport(q: Queryable, projectId: string, id: string): Promise<ReportRow | undefined> {
  const { rows } = await q.query(`SELECT ${COLUMNS} FROM reports WHERE project_id = $1 AND id = $2`, [projectId, id]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

/**
 * Pending reports whose last attempt's lease ran out after the last allowed attempt (the worker died or hung
 * every time) become `failed`, never pending forever. Returns how many.
 */
export async function failAbandoned(q: Queryable, now: Date, maxAttempts: number, reason: string): Promise<number> {
  const { rowCount } = await q.query(
    `UPDATE reports SET status = 'failed', failure_reason = $3, completed_at = $1, lease_until = NULL
      WHERE status = 'pending' AND attempts >= $2 AND lease_until IS NOT NULL AND lease_until <= $1`,
    [now, maxAttempts, reason],
  );
  return rowCount ?? 0;
}

/**
 * Takes the oldest pending report that is free (no lease, or an expired one, and not waiting for a retry):
 * one more attempt, leased until `leaseUntil`. SKIP LOCKED lets replicas take different reports at once.
 */
export async function claimNext(q: Queryable, now: Date, leaseUntil: Date, maxAttempts: number): Promise<ReportRow | undefined> {
  const { rows } = await q.query(
    `UPDATE reports SET attempts = attempts + 1, lease_until = $2
      WHERE id = (SELECT id FROM reports
                   WHERE status = 'pending' AND available_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
                     AND attempts < $3
                   ORDER BY available_at, created_at
                   LIMIT 1
                   FOR UPDATE SKIP LOCKED)
      RETURNING ${COLUMNS}`,
    [now, leaseUntil, maxAttempts],
  );
  return rows[0] ? toRow(rows[0]) : undefined;
}

/** Stores the PDF and marks the report ready, if `attempt` still holds it. False when it no longer does. */
export async function completeReport(c: PoolClient, id: string, attempt: number, pdf: Buffer, now: Date): Promise<boolean> {
  const { rowCount } = await c.query(
    `UPDATE reports SET status = 'ready', size_bytes = $3, completed_at = $4, lease_until = NULL, failure_reason = ''
      WHERE id = $1 AND attempts = $2 AND status = 'pending'`,
    [id, attempt, pdf.length, now],
  );
  if (!rowCount) return false;
  await c.query('INSERT INTO report_pdfs (report_id, content) VALUES ($1, $2)', [id, pdf]);
  return true;
}

/** Marks the report failed with `reason`, if `attempt` still holds it. */
export async function failReport(q: Queryable, id: string, attempt: number, reason: string, now: Date): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE reports SET status = 'failed', failure_reason = $3, completed_at = $4, lease_until = NULL
      WHERE id = $1 AND attempts = $2 AND status = 'pending'`,
    [id, attempt, reason, now],
  );
  return (rowCount ?? 0) > 0;
}

/** Gives the report back for another attempt at `availableAt` (keeping the last error for the log). */
export async function releaseForRetry(q: Queryable, id: string, attempt: number, lastError: string, availableAt: Date): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE reports SET lease_until = NULL, available_at = $4, failure_reason = $3
      WHERE id = $1 AND attempts = $2 AND status = 'pending'`,
    [id, attempt, lastError, availableAt],
  );
  return (rowCount ?? 0) > 0;
}

/** `length` bytes of the stored PDF from `offset` (0-based); an empty buffer past the end. */
export async function readPdfChunk(q: Queryable, id: string, offset: number, length: number): Promise<Buffer> {
  const { rows } = await q.query('SELECT substring(content FROM $2 FOR $3) AS chunk FROM report_pdfs WHERE report_id = $1', [
    id,
    offset + 1,
    length,
  ]);
  return (rows[0]?.chunk as Buffer | undefined) ?? Buffer.alloc(0);
}

/** Deletes up to `batch` reports whose retention is over (their PDFs go with them). Returns how many. */
export async function deleteExpired(q: Queryable, now: Date, batch: number): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM reports WHERE id IN (SELECT id FROM reports WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
    [now, batch],
  );
  return rowCount ?? 0;
}
