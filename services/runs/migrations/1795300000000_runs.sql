-- Up Migration
-- Automated test runs: runs, stable test identities, one result per test per run with its attempts, error
-- groups, the transactional outbox of lifecycle events, action rules, links to manual cases, plans and usage.

CREATE TABLE project_counters (
  project_id   text PRIMARY KEY,
  last_counter integer NOT NULL
);

CREATE TABLE runs (
  id                   text PRIMARY KEY,
  project_id           text NOT NULL,
  org_id               text NOT NULL,
  counter              integer NOT NULL,
  -- running, passed, failed, interrupted, incomplete
  status               text NOT NULL,
  -- stream, playwright, junit, compat
  source               text NOT NULL,
  start_time           timestamptz NOT NULL,
  end_time             timestamptz,
  duration_ms          bigint NOT NULL DEFAULT 0,
  last_activity_at     timestamptz NOT NULL,
  branch               text NOT NULL DEFAULT '',
  environment          text NOT NULL DEFAULT '',
  commit_hash          text NOT NULL DEFAULT '',
  commit_message       text NOT NULL DEFAULT '',
  commit_author        text NOT NULL DEFAULT '',
  ci                   jsonb NOT NULL DEFAULT '{}',
  extra                jsonb NOT NULL DEFAULT '{}',
  tags                 text[] NOT NULL DEFAULT '{}',
  total_tests_expected integer,
  coverage             jsonb,
  report_errors        jsonb NOT NULL DEFAULT '[]',
  total                integer NOT NULL DEFAULT 0,
  passed               integer NOT NULL DEFAULT 0,
  failed               integer NOT NULL DEFAULT 0,
  skipped              integer NOT NULL DEFAULT 0,
  flaky                integer NOT NULL DEFAULT 0,
  timed_out            integer NOT NULL DEFAULT 0,
  interrupted          integer NOT NULL DEFAULT 0,
  quarantined          integer NOT NULL DEFAULT 0,
  total_attempts       integer NOT NULL DEFAULT 0,
  retried_tests        integer NOT NULL DEFAULT 0,
  created_by           text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, counter)
);
CREATE INDEX runs_project_start_idx ON runs (project_id, start_time DESC, counter DESC);
CREATE INDEX runs_running_idx ON runs (last_activity_at) WHERE status = 'running';

-- Stable identity of an automated test: id = hash of (project, file, title path, project/browser name).
CREATE TABLE tests (
  id           text PRIMARY KEY,
  project_id   text NOT NULL,
  file         text NOT NULL,
  title_path   text[] NOT NULL,
  project_name text NOT NULL,
  full_title   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tests_project_title_idx ON tests (project_id, full_title);

-- One result per test per run (id = hash of run and test, so re-sent batches land on the same row).
CREATE TABLE results (
  id              text PRIMARY KEY,
  run_id          text NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  project_id      text NOT NULL,
  test_id         text NOT NULL,
  seq             integer NOT NULL,
  file            text NOT NULL,
  title_path      text[] NOT NULL,
  project_name    text NOT NULL,
  expected_status text NOT NULL DEFAULT 'passed',
  -- status of the last attempt: passed, failed, timedOut, skipped, interrupted
  status          text NOT NULL DEFAULT 'skipped',
  -- expected, unexpected, flaky, skipped (Playwright's outcome)
  outcome         text NOT NULL DEFAULT 'skipped',
  duration_ms     bigint NOT NULL DEFAULT 0,
  attempt_count   integer NOT NULL DEFAULT 0,
  quarantined     boolean NOT NULL DEFAULT false,
  tags            text[] NOT NULL DEFAULT '{}',
  annotations     jsonb NOT NULL DEFAULT '[]',
  location        jsonb,
  error_message   text,
  error_group_id  text,
  started_at      timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX results_run_seq_idx ON results (run_id, seq);
CREATE INDEX results_test_idx ON results (test_id, started_at DESC);
CREATE INDEX results_project_quarantined_idx ON results (project_id, created_at) WHERE quarantined;

CREATE TABLE attempts (
  result_id    text NOT NULL REFERENCES results(id) ON DELETE CASCADE,
  retry        integer NOT NULL,
  run_id       text NOT NULL,
  status       text NOT NULL,
  duration_ms  bigint NOT NULL DEFAULT 0,
  started_at   timestamptz,
  worker_index integer,
  errors       jsonb NOT NULL DEFAULT '[]',
  steps        jsonb NOT NULL DEFAULT '[]',
  stdout       jsonb NOT NULL DEFAULT '[]',
  stderr       jsonb NOT NULL DEFAULT '[]',
  attachments  jsonb NOT NULL DEFAULT '[]',
  PRIMARY KEY (result_id, retry)
);
CREATE INDEX attempts_run_idx ON attempts (run_id);

-- Failures grouped by a fingerprint of their normalized message.
CREATE TABLE error_groups (
  id            text PRIMARY KEY,
  project_id    text NOT NULL,
  fingerprint   text NOT NULL,
  message       text NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, fingerprint)
);

-- Transactional outbox: written in the transaction of the state change, relayed to Kafka in seq order.
CREATE TABLE outbox (
  seq          bigserial PRIMARY KEY,
  event_id     text NOT NULL UNIQUE,
  run_id       text NOT NULL,
  type         text NOT NULL,
  payload      bytea NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
CREATE INDEX outbox_pending_idx ON outbox (seq) WHERE published_at IS NULL;

CREATE TABLE action_rules (
  id            text PRIMARY KEY,
  project_id    text NOT NULL,
  name          text NOT NULL,
  description   text NOT NULL DEFAULT '',
  operations    text[] NOT NULL,
  title_pattern text,
  file          text,
  match_tag     text,
  tag           text,
  enabled       boolean NOT NULL DEFAULT true,
  expires_at    timestamptz,
  created_by    text NOT NULL DEFAULT 'admin-cli',
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX action_rules_project_idx ON action_rules (project_id, created_at DESC);

-- Links from automated tests to manual cases, made through the manual-testing RPC after the ingestion commits
-- (pending until that call succeeds; retried by a worker).
CREATE TABLE manual_links (
  project_id  text NOT NULL,
  test_id     text NOT NULL,
  case_ref    text NOT NULL,
  full_title  text NOT NULL,
  state       text NOT NULL DEFAULT 'pending',
  case_id     text,
  attempts    integer NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, test_id, case_ref)
);
CREATE INDEX manual_links_pending_idx ON manual_links (updated_at) WHERE state = 'pending';

CREATE TABLE plans (
  org_id                 text PRIMARY KEY,
  plan_name              text NOT NULL,
  test_results_per_month bigint NOT NULL,
  updated_at             timestamptz NOT NULL DEFAULT now()
);

-- Ingested test results (one per test per run) and runs, per organization and calendar month (UTC).
CREATE TABLE usage (
  org_id       text NOT NULL,
  period_start date NOT NULL,
  test_results bigint NOT NULL DEFAULT 0,
  runs         integer NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, period_start)
);

-- Down Migration
DROP TABLE usage;
DROP TABLE plans;
DROP TABLE manual_links;
DROP TABLE action_rules;
DROP TABLE outbox;
DROP TABLE error_groups;
DROP TABLE attempts;
DROP TABLE results;
DROP TABLE tests;
DROP TABLE runs;
DROP TABLE project_counters;
