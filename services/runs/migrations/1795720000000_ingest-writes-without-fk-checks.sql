-- Up Migration
-- An ingestion writes thousands of results and attempts in one transaction; checking each row's foreign key took
-- about a third of their COPY (Postgres CPU per 10,000 tests: results 122 → 80 ms, attempts 155 → 96 ms). Every
-- parent is written or locked first in that same transaction (the run created or locked FOR UPDATE, a result before
-- its attempts), so the checks go; a run's deletion still takes its results and attempts, in one statement each.
ALTER TABLE attempts DROP CONSTRAINT attempts_result_id_fkey;
ALTER TABLE results DROP CONSTRAINT results_run_id_fkey;

CREATE FUNCTION delete_run_children() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM attempts a USING results r, gone g WHERE r.run_id = g.id AND a.result_id = r.id;
  DELETE FROM results r USING gone g WHERE r.run_id = g.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER runs_delete_children AFTER DELETE ON runs REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION delete_run_children();

-- A run's attempts are read through its results (results_run_seq_idx, then the attempts' primary key): one index
-- fewer to write per attempt (96 → 82 ms per 10,000 tests).
DROP INDEX attempts_run_idx;

-- Down Migration
CREATE INDEX attempts_run_idx ON attempts (run_id);
DROP TRIGGER runs_delete_children ON runs;
DROP FUNCTION delete_run_children();
ALTER TABLE results ADD CONSTRAINT results_run_id_fkey FOREIGN KEY (run_id) REFERENCES runs(id) ON DELETE CASCADE;
ALTER TABLE attempts ADD CONSTRAINT attempts_result_id_fkey FOREIGN KEY (result_id) REFERENCES results(id) ON DELETE CASCADE;
