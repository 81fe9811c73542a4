-- Up Migration
-- Manual test suites: a tree per project, depth 1 (root) to 6.

CREATE TABLE suites (
  id                     text PRIMARY KEY,
  project_id             text NOT NULL,
  parent_id              text REFERENCES suites(id) ON DELETE RESTRICT,
  name                   text NOT NULL,
  description            text NOT NULL DEFAULT '',
  depth                  integer NOT NULL CHECK (depth BETWEEN 1 AND 6),
  position               integer NOT NULL,
  created_by             text,
  -- who changed it last, as the gateway named them at the time (public reads show name and e-mail only)
  last_modified_by_id    text,
  last_modified_by_name  text,
  last_modified_by_email text,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX suites_project_parent_idx ON suites (project_id, parent_id, position);

-- Down Migration
DROP TABLE suites;
