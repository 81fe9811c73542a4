-- Up Migration
-- Artifacts: the bytes of attachments (screenshots, videos, traces, files) live in object storage under
-- `storage_key`; a row per stored object. A row linked to a result (run_id, result_id, retry, name) is listed by
-- the reads. A row staged by a compatibility upload (upload_id, blob_path, no run yet) waits for the report
-- that names its URL; unclaimed, it expires with its upload. The sweeper deletes the object, then the row,
-- once `expires_at` has passed (retention, a deleted run, an unclaimed upload).
CREATE TABLE artifact_uploads (
  id          text PRIMARY KEY,
  project_id  text NOT NULL,
  -- SHA-256 of the upload's secret (the `sig` of its SAS token); the secret itself is never stored
  secret_hash bytea NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE artifacts (
  id           text PRIMARY KEY,
  project_id   text NOT NULL,
  run_id       text,
  result_id    text,
  retry        integer,
  -- the attachment's name in the report (screenshot, video, trace, or the test's own)
  name         text NOT NULL,
  -- the attachment's path in the report, when it had one (tells apart attachments with one name)
  source_path  text NOT NULL DEFAULT '',
  file_name    text NOT NULL,
  content_type text NOT NULL,
  size_bytes   bigint NOT NULL,
  sha256       text NOT NULL,
  storage_key  text NOT NULL UNIQUE,
  upload_id    text REFERENCES artifact_uploads(id) ON DELETE SET NULL,
  blob_path    text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  CHECK ((result_id IS NULL) = (retry IS NULL))
);
-- One object per attachment of an attempt: a re-upload replaces it.
CREATE UNIQUE INDEX artifacts_attachment_idx ON artifacts (result_id, retry, name, source_path) WHERE result_id IS NOT NULL;
CREATE INDEX artifacts_run_idx ON artifacts (run_id) WHERE run_id IS NOT NULL;
CREATE UNIQUE INDEX artifacts_blob_idx ON artifacts (upload_id, blob_path) WHERE upload_id IS NOT NULL;
CREATE INDEX artifacts_expiry_idx ON artifacts (expires_at);
CREATE INDEX artifacts_project_idx ON artifacts (project_id);

-- Per-project artifact retention (days); a project without a row has ARTIFACT_RETENTION_DAYS.
CREATE TABLE artifact_retention (
  project_id text PRIMARY KEY,
  days       integer NOT NULL CHECK (days BETWEEN 1 AND 3650),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE artifact_retention;
DROP TABLE artifacts;
DROP TABLE artifact_uploads;
