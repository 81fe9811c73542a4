-- Up Migration
-- The analytics read model. Everything here is derived from the runs service (finished runs and their
-- results) and can be dropped and rebuilt from it (`analytics:rebuild`).
--
-- Days are UTC days since 1970-01-01 (integers); a result belongs to the day its run started. Durations are
-- integer milliseconds; a histogram is the sparse log-scale sketch of src/domain/histogram.ts: sorted bucket
-- indices (h_idx) and their counts (h_cnt). Counts and histograms of the results that ran (not skipped).

-- One row per project seen; the lock that serializes every write of a project's read model.
CREATE TABLE projects (
  project_key    serial PRIMARY KEY,
  project_id     text NOT NULL UNIQUE,
  -- The rolling windows (*_windows) cover the `window_days` days ending with this day.
  as_of_day      integer NOT NULL,
  runs_folded    bigint NOT NULL DEFAULT 0,
  results_folded bigint NOT NULL DEFAULT 0,
  last_folded_at timestamptz,
  -- Bumped by every change of the project's rollups (fold, new day, rebuild): answers cached for a version
  -- are answers of the current read model.
  version        bigint NOT NULL DEFAULT 0
);

CREATE TABLE files (
  file_key    serial PRIMARY KEY,
  project_key integer NOT NULL,
  file        text NOT NULL,
  UNIQUE (project_key, file)
);

-- Automated tests, by the runs service's stable test id. Tags: those of its latest result.
CREATE TABLE tests (
  test_key     serial PRIMARY KEY,
  project_key  integer NOT NULL,
  test_id      text NOT NULL,
  file_key     integer NOT NULL,
  title_path   text[] NOT NULL,
  title        text NOT NULL,
  project_name text NOT NULL,
  tags         text[] NOT NULL DEFAULT '{}',
  tags_at      timestamptz NOT NULL,
  UNIQUE (project_key, test_id)
);

-- Values seen in the project's runs (the filters) and the keys the rollups use: kind = branch, environment,
-- developer (commit author), tag (run tags and test tags).
CREATE TABLE dims (
  dim_key     serial PRIMARY KEY,
  project_key integer NOT NULL,
  kind        text NOT NULL,
  value       text NOT NULL,
  UNIQUE (project_key, kind, value)
);

-- Distinct sets of tags a result carried (its test tags plus its run's tags, sorted); '{}' = none.
CREATE TABLE tagsets (
  tagset_key  serial PRIMARY KEY,
  project_key integer NOT NULL,
  tags        text[] NOT NULL,
  UNIQUE (project_key, tags)
);

-- Runs seen. A run is folded (its results counted) exactly once: folded_at is set in the transaction that
-- adds its results to the rollups, and a run already folded is skipped.
CREATE TABLE runs (
  run_id      text PRIMARY KEY,
  project_key integer NOT NULL,
  status      text NOT NULL,
  day         integer NOT NULL,
  start_time  timestamptz NOT NULL,
  branch      text NOT NULL DEFAULT '',
  environment text NOT NULL DEFAULT '',
  author      text NOT NULL DEFAULT '',
  tags        text[] NOT NULL DEFAULT '{}',
  -- Run tags plus every test tag of its results (a run matches a tag filter when one of its results does).
  all_tags    text[] NOT NULL DEFAULT '{}',
  results     integer NOT NULL DEFAULT 0,
  -- RunSnapshot (protobuf) of the latest event: the dashboard's active runs.
  snapshot    bytea,
  folded_at   timestamptz
);
CREATE INDEX runs_project_day_idx ON runs (project_key, day) WHERE folded_at IS NOT NULL;
CREATE INDEX runs_running_idx ON runs (project_key, start_time DESC) WHERE status = 'running';

-- Per test per day (and per branch, environment and tag set, for filtered reports).
CREATE TABLE test_days (
  project_key    integer NOT NULL,
  day            integer NOT NULL,
  test_key       integer NOT NULL,
  branch_key     integer NOT NULL,
  env_key        integer NOT NULL,
  tagset_key     integer NOT NULL,
  executions     integer NOT NULL,
  passed         integer NOT NULL,
  failed         integer NOT NULL,
  flaky          integer NOT NULL,
  skipped        integer NOT NULL,
  dur_sum        bigint NOT NULL,
  dur_min        bigint,
  dur_max        bigint,
  h_idx          integer[] NOT NULL,
  h_cnt          integer[] NOT NULL,
  last_run_at    timestamptz NOT NULL,
  last_failed_at timestamptz,
  last_flaky_at  timestamptz,
  PRIMARY KEY (project_key, day, test_key, branch_key, env_key, tagset_key)
);

-- Per spec file per day.
CREATE TABLE file_days (
  project_key integer NOT NULL,
  day         integer NOT NULL,
  file_key    integer NOT NULL,
  executions  integer NOT NULL,
  passed      integer NOT NULL,
  failed      integer NOT NULL,
  flaky       integer NOT NULL,
  skipped     integer NOT NULL,
  dur_sum     bigint NOT NULL,
  dur_min     bigint,
  dur_max     bigint,
  h_idx       integer[] NOT NULL,
  h_cnt       integer[] NOT NULL,
  last_run_at timestamptz NOT NULL,
  PRIMARY KEY (project_key, day, file_key)
);

-- Per project per day, per branch and environment.
CREATE TABLE project_days (
  project_key integer NOT NULL,
  day         integer NOT NULL,
  branch_key  integer NOT NULL,
  env_key     integer NOT NULL,
  executions  bigint NOT NULL,
  passed      bigint NOT NULL,
  failed      bigint NOT NULL,
  flaky       bigint NOT NULL,
  skipped     bigint NOT NULL,
  dur_sum     bigint NOT NULL,
  dur_min     bigint,
  dur_max     bigint,
  h_idx       integer[] NOT NULL,
  h_cnt       integer[] NOT NULL,
  PRIMARY KEY (project_key, day, branch_key, env_key)
);

-- Per tag per day: results carrying the tag (test or run tag) and the runs with at least one of them.
CREATE TABLE tag_days (
  project_key integer NOT NULL,
  day         integer NOT NULL,
  tag_key     integer NOT NULL,
  runs        integer NOT NULL,
  executions  integer NOT NULL,
  passed      integer NOT NULL,
  failed      integer NOT NULL,
  flaky       integer NOT NULL,
  skipped     integer NOT NULL,
  dur_sum     bigint NOT NULL,
  PRIMARY KEY (project_key, day, tag_key)
);

-- Rolling windows (7, 30, 90 days ending with projects.as_of_day), kept current incrementally: a fold adds to
-- them, a new day adds the days that enter and subtracts the days that leave. Percentiles are stored.
CREATE TABLE test_windows (
  project_key    integer NOT NULL,
  window_days    smallint NOT NULL,
  test_key       integer NOT NULL,
  executions     integer NOT NULL,
  passed         integer NOT NULL,
  failed         integer NOT NULL,
  flaky          integer NOT NULL,
  skipped        integer NOT NULL,
  dur_sum        bigint NOT NULL,
  dur_min        bigint,
  dur_max        bigint,
  h_idx          integer[] NOT NULL,
  h_cnt          integer[] NOT NULL,
  p50            bigint NOT NULL,
  p90            bigint NOT NULL,
  p95            bigint NOT NULL,
  p99            bigint NOT NULL,
  last_run_at    timestamptz,
  last_failed_at timestamptz,
  last_flaky_at  timestamptz,
  PRIMARY KEY (project_key, window_days, test_key)
);

CREATE TABLE file_windows (
  project_key integer NOT NULL,
  window_days smallint NOT NULL,
  file_key    integer NOT NULL,
  executions  integer NOT NULL,
  passed      integer NOT NULL,
  failed      integer NOT NULL,
  flaky       integer NOT NULL,
  skipped     integer NOT NULL,
  dur_sum     bigint NOT NULL,
  dur_min     bigint,
  dur_max     bigint,
  h_idx       integer[] NOT NULL,
  h_cnt       integer[] NOT NULL,
  p50         bigint NOT NULL,
  p90         bigint NOT NULL,
  p95         bigint NOT NULL,
  p99         bigint NOT NULL,
  last_run_at timestamptz,
  PRIMARY KEY (project_key, window_days, file_key)
);

CREATE TABLE project_windows (
  project_key integer NOT NULL,
  window_days smallint NOT NULL,
  executions  bigint NOT NULL,
  passed      bigint NOT NULL,
  failed      bigint NOT NULL,
  flaky       bigint NOT NULL,
  skipped     bigint NOT NULL,
  dur_sum     bigint NOT NULL,
  dur_min     bigint,
  dur_max     bigint,
  h_idx       integer[] NOT NULL,
  h_cnt       integer[] NOT NULL,
  p50         bigint NOT NULL,
  p90         bigint NOT NULL,
  p95         bigint NOT NULL,
  p99         bigint NOT NULL,
  PRIMARY KEY (project_key, window_days)
);

-- Down Migration
DROP TABLE project_windows, file_windows, test_windows, tag_days, project_days, file_days, test_days, runs, tagsets, dims,
  tests, files, projects;
