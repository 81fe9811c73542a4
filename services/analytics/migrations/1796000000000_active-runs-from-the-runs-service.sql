-- Up Migration
-- The dashboard's running runs are asked of the runs service since this release: the snapshot kept here was the one
-- of RUN_STARTED, so a run's counts stayed at zero on the dashboard while its results streamed in. Nothing writes or
-- reads runs.snapshot now, nor looks for running runs by start time. The column stays for one release, so that an
-- analytics of the previous version keeps working during a rolling upgrade; a later release drops it.
DROP INDEX runs_running_idx;
COMMENT ON COLUMN runs.snapshot IS 'not written since 1796000000000; to be dropped';

-- Down Migration
COMMENT ON COLUMN runs.snapshot IS NULL;
CREATE INDEX runs_running_idx ON runs (project_key, start_time DESC) WHERE status = 'running';
