-- Up Migration
-- The run list's exact filters (the web app's runs page: branch, environment, status), each with the list's own order.
-- Without them a filtered page counted its runs with a scan of the whole project's runs, and looked for its page
-- through the project's runs in time order: 17 ms a page over a project of 100,000 runs, whatever the filter matched.
-- With them a filter that matches few runs is counted from its own entries, and one that matches many with an
-- index-only scan. A run is written a few times (its start, its batches, its finish): three more entries a write.
CREATE INDEX runs_project_branch_idx ON runs (project_id, branch, start_time DESC, counter DESC);
CREATE INDEX runs_project_environment_idx ON runs (project_id, environment, start_time DESC, counter DESC);
CREATE INDEX runs_project_status_idx ON runs (project_id, status, start_time DESC, counter DESC);

-- Down Migration
DROP INDEX runs_project_status_idx;
DROP INDEX runs_project_environment_idx;
DROP INDEX runs_project_branch_idx;
