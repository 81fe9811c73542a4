-- Up Migration
-- Manual test cases (with comments and linked automated tests), releases, exploratory sessions, manual runs
-- and their per-case verdicts. Who changed a record last is kept as the gateway named them at the time.

-- The last case number handed out per project: incremented in the transaction that creates the case, so a
-- rolled-back create gives its number back (gap-free) and a committed one is never reused.
CREATE TABLE case_counters (
  project_id  text PRIMARY KEY,
  last_number integer NOT NULL
);

CREATE TABLE cases (
  id                     text PRIMARY KEY,
  project_id             text NOT NULL,
  number                 integer NOT NULL,
  suite_id               text REFERENCES suites(id) ON DELETE RESTRICT,
  title                  text NOT NULL,
  description            text NOT NULL DEFAULT '',
  preconditions          text NOT NULL DEFAULT '',
  postconditions         text NOT NULL DEFAULT '',
  status                 text NOT NULL CHECK (status IN ('active', 'draft', 'deprecated')),
  severity               text NOT NULL CHECK (severity IN ('blocker', 'critical', 'major', 'normal', 'minor', 'trivial', 'not_set')),
  priority               text NOT NULL CHECK (priority IN ('critical', 'high', 'medium', 'low', 'not_set')),
  type                   text NOT NULL,
  layer                  text NOT NULL CHECK (layer IN ('e2e', 'api', 'unit', 'not_set')),
  behavior               text NOT NULL CHECK (behavior IN ('positive', 'negative', 'destructive', 'not_set')),
  automation_status      text NOT NULL CHECK (automation_status IN ('manual', 'automated')),
  is_flaky               boolean NOT NULL DEFAULT false,
  is_muted               boolean NOT NULL DEFAULT false,
  to_be_automated        boolean NOT NULL DEFAULT false,
  steps_type             text NOT NULL CHECK (steps_type IN ('classic', 'gherkin')),
  classic_steps          jsonb NOT NULL DEFAULT '[]',
  gherkin_steps          jsonb NOT NULL DEFAULT '[]',
  tags                   text[] NOT NULL DEFAULT '{}',
  custom_fields          jsonb NOT NULL DEFAULT '{}',
  issues                 text[] NOT NULL DEFAULT '{}',
  created_by             text,
  last_modified_by_id    text,
  last_modified_by_name  text,
  last_modified_by_email text,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, number)
);
CREATE INDEX cases_project_suite_idx ON cases (project_id, suite_id);
CREATE INDEX cases_tags_idx ON cases USING gin (tags);

CREATE TABLE case_comments (
  id           text PRIMARY KEY,
  case_id      text NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
  seq          integer NOT NULL,
  text         text NOT NULL,
  author_id    text,
  author_name  text,
  author_email text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX case_comments_case_idx ON case_comments (case_id, created_at, seq);

CREATE TABLE case_linked_tests (
  case_id       text NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
  test_id       text NOT NULL,
  full_title    text NOT NULL,
  display_title text,
  source        text NOT NULL CHECK (source IN ('manual_link', 'auto_created')),
  linked_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (case_id, test_id)
);

CREATE TABLE releases (
  id                     text PRIMARY KEY,
  project_id             text NOT NULL,
  parent_id              text REFERENCES releases(id) ON DELETE RESTRICT,
  depth                  integer NOT NULL CHECK (depth BETWEEN 1 AND 3),
  name                   text NOT NULL,
  description            text NOT NULL DEFAULT '',
  note                   text NOT NULL DEFAULT '',
  type                   text,
  start_date             text,
  end_date               text,
  branch                 text,
  environment            text,
  linked_issues          jsonb NOT NULL DEFAULT '[]',
  build_target           jsonb,
  -- [{id, name, email}] as resolved from the organization's members at the time of the write
  testers                jsonb NOT NULL DEFAULT '[]',
  is_started             boolean NOT NULL DEFAULT false,
  started_at             timestamptz,
  is_completed           boolean NOT NULL DEFAULT false,
  completed_at           timestamptz,
  created_by             text,
  last_modified_by_id    text,
  last_modified_by_name  text,
  last_modified_by_email text,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX releases_project_idx ON releases (project_id, created_at);

CREATE TABLE sessions (
  id                     text PRIMARY KEY,
  project_id             text NOT NULL,
  name                   text NOT NULL,
  mission                text NOT NULL DEFAULT '',
  session_type           text,
  config                 text,
  environment            text,
  release_id             text REFERENCES releases(id) ON DELETE RESTRICT,
  assignee_id            text,
  assignee_name          text,
  assignee_email         text,
  state                  text,
  estimate               integer CHECK (estimate >= 0),
  tags                   text[] NOT NULL DEFAULT '{}',
  linked_issues          jsonb NOT NULL DEFAULT '[]',
  status                 text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  closed_at              timestamptz,
  created_by             text,
  last_modified_by_id    text,
  last_modified_by_name  text,
  last_modified_by_email text,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_project_idx ON sessions (project_id, created_at);

CREATE TABLE manual_runs (
  id                     text PRIMARY KEY,
  project_id             text NOT NULL,
  name                   text NOT NULL,
  note                   text NOT NULL DEFAULT '',
  environment            text,
  release_id             text REFERENCES releases(id) ON DELETE RESTRICT,
  state                  text,
  selection_mode         text NOT NULL CHECK (selection_mode IN ('all', 'selected')),
  include_unsorted       boolean NOT NULL DEFAULT false,
  forecast               double precision CHECK (forecast >= 0),
  tags                   text[] NOT NULL DEFAULT '{}',
  linked_issues          jsonb NOT NULL DEFAULT '[]',
  links                  jsonb NOT NULL DEFAULT '[]',
  status                 text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  closed_at              timestamptz,
  created_by             text,
  last_modified_by_id    text,
  last_modified_by_name  text,
  last_modified_by_email text,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX manual_runs_project_idx ON manual_runs (project_id, created_at);

CREATE TABLE run_cases (
  id             text PRIMARY KEY,
  run_id         text NOT NULL REFERENCES manual_runs(id) ON DELETE CASCADE,
  case_id        text NOT NULL REFERENCES cases(id) ON DELETE RESTRICT,
  position       integer NOT NULL,
  result         text NOT NULL DEFAULT 'untested'
                 CHECK (result IN ('untested', 'passed', 'failed', 'blocked', 'skipped', 'retest')),
  assignee_id    text,
  assignee_name  text,
  assignee_email text,
  elapsed        double precision CHECK (elapsed >= 0),
  comment        text NOT NULL DEFAULT '',
  linked_issues  jsonb NOT NULL DEFAULT '[]',
  step_results   jsonb NOT NULL DEFAULT '[]',
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (run_id, case_id)
);
CREATE INDEX run_cases_run_idx ON run_cases (run_id, position);

-- Down Migration
DROP TABLE run_cases;
DROP TABLE manual_runs;
DROP TABLE sessions;
DROP TABLE releases;
DROP TABLE case_linked_tests;
DROP TABLE case_comments;
DROP TABLE cases;
DROP TABLE case_counters;
