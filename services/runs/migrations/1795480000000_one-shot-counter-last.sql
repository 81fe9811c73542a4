-- Up Migration
-- A one-shot report writes its tests before its run takes a number (the project's counter row lock is taken
-- last, so a large upload does not hold every other ingestion into the project). Inside that transaction the
-- run has no number yet; it is numbered before it leaves `running`, so no committed finished run lacks one,
-- and a running one only while its creating transaction is open.
ALTER TABLE runs ALTER COLUMN counter DROP NOT NULL;
ALTER TABLE runs ADD CONSTRAINT runs_numbered_when_finished CHECK (counter IS NOT NULL OR status = 'running');

-- Down Migration
ALTER TABLE runs DROP CONSTRAINT runs_numbered_when_finished;
ALTER TABLE runs ALTER COLUMN counter SET NOT NULL;
