/** Artifact rows (the bytes are in object storage under `storage_key`), compatibility uploads, retention. */
import type { Queryable } from '@assay/db';

export interface ArtifactRow {
  id: string;
  projectId: string;
  runId: string | null;
  resultId: string | null;
  retry: number | null;
  name: string;
  sourcePath: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  storageKey: string;
  createdAt: Date;
  expiresAt: Date;
}

const COLUMNS = `id, project_id, run_id, result_id, retry, name, source_path, file_name, content_type, size_bytes, sha256,
  storage_key, created_at, expires_at`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
const toRow = (r: any): ArtifactRow => ({
  id: r.id,
  projectId: r.project_id,
  runId: r.run_id,
  resultId: r.result_id,
  retry: r.retry,
  name: r.name,
  sourcePath: r.source_path,
  fileName: r.file_name,
  contentType: r.content_type,
  sizeBytes: Number(r.size_bytes),
  sha256: r.sha256,
  storageKey: r.storage_key,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
});

export type NewArtifact = Omit<ArtifactRow, 'createdAt'>;

/**
 * Stores the row of an attachment's object; a re-upload of the same attachment replaces the row (which keeps its
 * id). Answers the row's id and the storage key it had before (its object is now garbage), if any: `old` reads
 * the statement's snapshot, before the upsert (a FOR UPDATE there would skip the row the upsert changes and
 * answer nothing). The caller holds the run's row lock, so two uploads of one attachment do not interleave.
 */
export async function upsertAttachmentArtifact(db: Queryable, a: NewArtifact): Promise<{ id: string; oldKey?: string }> {
  const { rows } = await db.query(
    `WITH old AS (
       SELECT storage_key FROM artifacts WHERE result_id = $4 AND retry = $5 AND name = $6 AND source_path = $7
     ), up AS (
       INSERT INTO artifacts (id, project_id, run_id, result_id, retry, name, source_path, file_name, content_type, size_bytes,
                              sha256, storage_key, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (result_id, retry, name, source_path) WHERE result_id IS NOT NULL DO UPDATE
         SET file_name = EXCLUDED.file_name, content_type = EXCLUDED.content_type, size_bytes = EXCLUDED.size_bytes,
             sha256 = EXCLUDED.sha256, storage_key = EXCLUDED.storage_key, expires_at = EXCLUDED.expires_at, created_at = now()
       RETURNING id
     )
     SELECT up.id, (SELECT storage_key FROM old) AS old_key FROM up`,
    [
      a.id,
      a.projectId,
      a.runId,
      a.resultId,
      a.retry,
      a.name,
      a.sourcePath,
      a.fileName,
      a.contentType,
      a.sizeBytes,
      a.sha256,
      a.storageKey,
      a.expiresAt,
    ],
  );
  return { id: rows[0].id, oldKey: rows[0].old_key ?? undefined };
}

export async function findArtifact(db: Queryable, id: string): Promise<ArtifactRow | undefined> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM artifacts WHERE id = $1`, [id]);
  return rows[0] ? toRow(rows[0]) : undefined;
}

/** The stored artifacts of one result (every attempt). */
export async function artifactsOfResult(db: Queryable, resultId: string): Promise<ArtifactRow[]> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM artifacts WHERE result_id = $1 ORDER BY retry, created_at`, [resultId]);
  return rows.map(toRow);
}

/** The stored artifacts of a run: those of its results and its run-level files (an uploaded HTML report). */
export async function artifactsOfRun(db: Queryable, runId: string, limit: number): Promise<ArtifactRow[]> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM artifacts WHERE run_id = $1 ORDER BY created_at, id LIMIT $2`, [runId, limit]);
  return rows.map(toRow);
}

/**
 * A run-level file of a run by its upload path (a file of its HTML report), not expired. Two uploads linked to one
 * run may both hold the path: the newest wins.
 */
export async function runFileByPath(db: Queryable, runId: string, sourcePath: string, now: Date): Promise<ArtifactRow | undefined> {
  const { rows } = await db.query(
    `SELECT ${COLUMNS} FROM artifacts
      WHERE run_id = $1 AND result_id IS NULL AND source_path = $2 AND expires_at > $3
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [runId, sourcePath, now],
  );
  return rows[0] ? toRow(rows[0]) : undefined;
}

/** Expires a run's artifacts now (the run is being deleted): no read serves them; the sweeper deletes them. */
export async function expireRunArtifacts(db: Queryable, runId: string, now: Date): Promise<number> {
  const { rowCount } = await db.query('UPDATE artifacts SET expires_at = $2 WHERE run_id = $1 AND expires_at > $2', [runId, now]);
  return rowCount ?? 0;
}

export async function runArtifactBytes(db: Queryable, runId: string): Promise<number> {
  const { rows } = await db.query('SELECT COALESCE(SUM(size_bytes), 0) AS n FROM artifacts WHERE run_id = $1', [runId]);
  return Number(rows[0].n);
}

/** Storage a project uses now: stored objects and their bytes (staged uploads included). */
export async function projectArtifactUsage(db: Queryable, projectId: string): Promise<{ count: number; bytes: number }> {
  const { rows } = await db.query('SELECT count(*) AS c, COALESCE(SUM(size_bytes), 0) AS n FROM artifacts WHERE project_id = $1', [
    projectId,
  ]);
  return { count: Number(rows[0].c), bytes: Number(rows[0].n) };
}

// ---- retention ----------------------------------------------------------------------------------------------

export async function retentionDaysOf(db: Queryable, projectId: string, fallback: number): Promise<number> {
  const { rows } = await db.query('SELECT days FROM artifact_retention WHERE project_id = $1', [projectId]);
  return rows[0] ? Number(rows[0].days) : fallback;
}

/** Sets a project's retention and moves the expiry of what it already stores to match. */
export async function setRetentionDays(db: Queryable, projectId: string, days: number): Promise<void> {
  await db.query(
    `INSERT INTO artifact_retention (project_id, days) VALUES ($1, $2)
     ON CONFLICT (project_id) DO UPDATE SET days = EXCLUDED.days, updated_at = now()`,
    [projectId, days],
  );
  await db.query(`UPDATE artifacts SET expires_at = created_at + make_interval(days => $2) WHERE project_id = $1 AND run_id IS NOT NULL`, [
    projectId,
    days,
  ]);
}

/** Expired rows, oldest first, for the sweeper. */
export async function expiredArtifacts(db: Queryable, now: Date, limit: number): Promise<{ id: string; storageKey: string }[]> {
  const { rows } = await db.query('SELECT id, storage_key FROM artifacts WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2', [
    now,
    limit,
  ]);
  return rows.map((r) => ({ id: r.id, storageKey: r.storage_key }));
}

export async function deleteArtifactRows(db: Queryable, ids: string[]): Promise<void> {
  await db.query('DELETE FROM artifacts WHERE id = ANY($1)', [ids]);
}

// ---- compatibility uploads (tdpw's SAS flow) -------------------------------------------------------------------

export interface UploadRow {
  id: string;
  projectId: string;
  secretHash: Buffer;
  expiresAt: Date;
}

export async function insertUpload(db: Queryable, u: UploadRow): Promise<void> {
  await db.query('INSERT INTO artifact_uploads (id, project_id, secret_hash, expires_at) VALUES ($1, $2, $3, $4)', [
    u.id,
    u.projectId,
    u.secretHash,
    u.expiresAt,
  ]);
}

export async function findUpload(db: Queryable, id: string): Promise<UploadRow | undefined> {
  const { rows } = await db.query('SELECT id, project_id, secret_hash, expires_at FROM artifact_uploads WHERE id = $1', [id]);
  return rows[0]
    ? { id: rows[0].id, projectId: rows[0].project_id, secretHash: rows[0].secret_hash, expiresAt: rows[0].expires_at }
    : undefined;
}

/** A blob PUT under an upload: a new row, or the replacement of that path's row (answers the old key). */
export async function upsertStagedBlob(
  db: Queryable,
  a: NewArtifact & { uploadId: string; blobPath: string },
): Promise<string | undefined> {
  const { rows } = await db.query(
    `WITH old AS (
       SELECT storage_key FROM artifacts WHERE upload_id = $1 AND blob_path = $2
     ), up AS (
       INSERT INTO artifacts (id, project_id, name, file_name, content_type, size_bytes, sha256, storage_key, expires_at, upload_id, blob_path)
       VALUES ($3, $4, $5, $6, $7, $8, $9, $10, $11, $1, $2)
       ON CONFLICT (upload_id, blob_path) WHERE upload_id IS NOT NULL DO UPDATE
         SET file_name = EXCLUDED.file_name, content_type = EXCLUDED.content_type, size_bytes = EXCLUDED.size_bytes,
             sha256 = EXCLUDED.sha256, storage_key = EXCLUDED.storage_key, expires_at = EXCLUDED.expires_at, created_at = now()
       RETURNING id
     )
     SELECT (SELECT storage_key FROM old) AS old_key FROM up`,
    [a.uploadId, a.blobPath, a.id, a.projectId, a.name, a.fileName, a.contentType, a.sizeBytes, a.sha256, a.storageKey, a.expiresAt],
  );
  return rows[0]?.old_key ?? undefined;
}

/** Attachments of a run whose path is a URL under /api/storage/uploads/ (a compatibility upload's blob). */
export async function uploadedAttachmentPaths(db: Queryable, runId: string) {
  const { rows } = await db.query(
    `SELECT a.result_id, a.retry, att->>'name' AS name, att->>'path' AS path, att->>'contentType' AS content_type
       FROM results r JOIN attempts a ON a.result_id = r.id, jsonb_array_elements(a.attachments) att
      WHERE r.run_id = $1 AND att->>'path' LIKE '%/api/storage/uploads/%'`,
    [runId],
  );
  return rows.map((r) => ({
    resultId: r.result_id as string,
    retry: r.retry as number,
    name: r.name as string,
    path: r.path as string,
    contentType: r.content_type as string | null,
  }));
}

/**
 * Claims a staged blob of one of the project's uploads for an attachment of a run (or, with a null result, as
 * a run-level file). A blob of another project's upload is never claimed.
 */
export async function claimStagedBlob(
  db: Queryable,
  c: {
    projectId: string;
    uploadId: string;
    blobPath: string;
    runId: string;
    resultId: string | null;
    retry: number | null;
    name: string;
    sourcePath: string;
    expiresAt: Date;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE artifacts SET run_id = $3, result_id = $4, retry = $5, name = $6, source_path = $7, expires_at = $8
      WHERE project_id = $1 AND upload_id = $2 AND blob_path = $9 AND run_id IS NULL`,
    [c.projectId, c.uploadId, c.runId, c.resultId, c.retry, c.name, c.sourcePath, c.expiresAt, c.blobPath],
  );
  return (rowCount ?? 0) > 0;
}

/** The unclaimed blobs left in uploads (run-level files such as an HTML report). */
export async function unclaimedBlobs(
  db: Queryable,
  projectId: string,
  uploadIds: string[],
): Promise<{ uploadId: string; blobPath: string }[]> {
  const { rows } = await db.query(
    'SELECT upload_id, blob_path FROM artifacts WHERE project_id = $1 AND upload_id = ANY($2) AND run_id IS NULL ORDER BY blob_path LIMIT 10000',
    [projectId, uploadIds],
  );
  return rows.map((r) => ({ uploadId: r.upload_id, blobPath: r.blob_path }));
}

export async function deleteExpiredUploads(db: Queryable, before: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM artifact_uploads WHERE expires_at < $1', [before]);
  return rowCount ?? 0;
}
