-- Up Migration
-- Sharded CI builds report into one run: a run started with a build id is the build's run (one per project and
-- build id: a second start with the same id answers it), each shard's results carry its number, and the run
-- finishes once `shard_total` distinct shards have finished (or the inactivity sweeper ends it).
ALTER TABLE runs ADD COLUMN build_id text;
ALTER TABLE runs ADD COLUMN shard_total integer;
ALTER TABLE runs ADD COLUMN shards_finished integer[] NOT NULL DEFAULT '{}';
CREATE UNIQUE INDEX runs_project_build_idx ON runs (project_id, build_id) WHERE build_id IS NOT NULL;
ALTER TABLE results ADD COLUMN shard integer;

-- Down Migration
ALTER TABLE results DROP COLUMN shard;
DROP INDEX runs_project_build_idx;
ALTER TABLE runs DROP COLUMN shards_finished;
ALTER TABLE runs DROP COLUMN shard_total;
ALTER TABLE runs DROP COLUMN build_id;
