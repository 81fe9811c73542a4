-- Up Migration
-- PDF reports: one row per requested report (its parameters, status and the lease of the worker generating
-- it) and, once ready, its bytes in report_pdfs, written in the same transaction as status = 'ready'.

CREATE TABLE reports (
  id              text PRIMARY KEY,
  project_id      text NOT NULL,
  org_id          text NOT NULL,
  -- as the identity service named the project when the report was requested (cover and file name)
  project_name    text NOT NULL,
  -- the caller principal (gateway header form), forwarded to analytics and runs when the worker generates
  requested_by    jsonb NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
  days            integer NOT NULL CHECK (days BETWEEN 1 AND 90),
  -- the period, whole UTC days, fixed at request time
  from_date       date NOT NULL,
  until_date      date NOT NULL,
  branch          text NOT NULL DEFAULT '',
  environment     text NOT NULL DEFAULT '',
  tags            text[] NOT NULL DEFAULT '{}',
  file_name       text NOT NULL DEFAULT '',
  size_bytes      bigint NOT NULL DEFAULT 0,
  failure_reason  text NOT NULL DEFAULT '',
  -- generation attempts started, and until when the current one holds the report (NULL: free to take)
  attempts        integer NOT NULL DEFAULT 0,
  lease_until     timestamptz,
  -- earliest time a worker may take it (retries wait REPORT_RETRY_DELAY_SECONDS)
  available_at    timestamptz NOT NULL DEFAULT now(),
  created_at      timestamptz NOT NULL DEFAULT now(),
  completed_at    timestamptz,
  expires_at      timestamptz NOT NULL
);
CREATE INDEX reports_project_idx ON reports (project_id, id);
CREATE INDEX reports_pending_idx ON reports (available_at, created_at) WHERE status = 'pending';
CREATE INDEX reports_expires_idx ON reports (expires_at);

CREATE TABLE report_pdfs (
  report_id  text PRIMARY KEY REFERENCES reports (id) ON DELETE CASCADE,
  content    bytea NOT NULL
);
-- PDFs are compressed already: store them out of line WITHOUT compression, so a download reads them in
-- chunks (substring) without decompressing the whole value.
ALTER TABLE report_pdfs ALTER COLUMN content SET STORAGE EXTERNAL;

-- Down Migration
DROP TABLE report_pdfs;
DROP TABLE reports;
