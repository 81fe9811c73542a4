-- Up Migration
-- Each project's runs, counted as they are numbered and deleted. The run list without filters (the web app's runs
-- page, the API's default) took its total from count(*) over every run of the project, a scan that grows with the
-- project's history: runs are kept until deleted, and 100,000 runs cost Postgres 13-16 ms a page.
-- Triggers keep the count, so a runs service of the previous version (a rolling upgrade) keeps it too. A run counts
-- from the moment it has its number: its transaction holds the project's counter row by then, so the count's row
-- is always taken after that one, by one transaction of the project at a time. A table of its own, so that this
-- migration locks `runs` only (altering project_counters as well would lock it while an ingestion that holds a
-- counter row waits to write its run).
CREATE TABLE project_run_counts (
  project_id text PRIMARY KEY,
  runs       integer NOT NULL
);

CREATE FUNCTION count_numbered_run() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO project_run_counts (project_id, runs) VALUES (NEW.project_id, 1)
    ON CONFLICT (project_id) DO UPDATE SET runs = project_run_counts.runs + 1;
  RETURN NULL;
END
$$;
CREATE TRIGGER runs_count_numbered AFTER INSERT ON runs
  FOR EACH ROW WHEN (NEW.counter IS NOT NULL) EXECUTE FUNCTION count_numbered_run();
-- A one-shot report's run is numbered last, in its creating transaction.
CREATE TRIGGER runs_count_numbered_later AFTER UPDATE OF counter ON runs
  FOR EACH ROW WHEN (OLD.counter IS NULL AND NEW.counter IS NOT NULL) EXECUTE FUNCTION count_numbered_run();

CREATE FUNCTION uncount_deleted_runs() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE project_run_counts c SET runs = c.runs - g.n
    FROM (SELECT project_id, count(*)::int AS n FROM gone WHERE counter IS NOT NULL GROUP BY project_id) g
   WHERE c.project_id = g.project_id;
  RETURN NULL;
END
$$;
CREATE TRIGGER runs_uncount_deleted AFTER DELETE ON runs REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION uncount_deleted_runs();

-- The runs there are already. After the triggers: creating them locked `runs` against writes until this migration
-- commits, so each run is counted either here or by a trigger, never both.
INSERT INTO project_run_counts (project_id, runs)
  SELECT project_id, count(*)::int FROM runs WHERE counter IS NOT NULL GROUP BY project_id;

-- Down Migration
DROP TRIGGER runs_uncount_deleted ON runs;
DROP FUNCTION uncount_deleted_runs();
DROP TRIGGER runs_count_numbered_later ON runs;
DROP TRIGGER runs_count_numbered ON runs;
DROP FUNCTION count_numbered_run();
DROP TABLE project_run_counts;
