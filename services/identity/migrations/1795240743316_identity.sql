-- Up Migration
-- The identity schema (owned by the identity service; created when the gateway still held it): who may call
-- the API and on which projects.

CREATE TABLE orgs (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id          text PRIMARY KEY,
  -- stored lower-cased: e-mail lookups (assignees, testers) are case-insensitive
  email       text NOT NULL UNIQUE,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
  org_id      text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role        text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id);

CREATE TABLE projects (
  id          text PRIMARY KEY,
  org_id      text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_org_idx ON projects (org_id);

-- A token is either a user's personal access token (type pat, user_id set) or a project's api key
-- (type api_key, project_id set). Its secret is never stored: token_secrets holds SHA-256 digests.
CREATE TABLE tokens (
  id            text PRIMARY KEY,
  type          text NOT NULL CHECK (type IN ('pat', 'api_key')),
  user_id       text REFERENCES users(id) ON DELETE CASCADE,
  project_id    text REFERENCES projects(id) ON DELETE CASCADE,
  name          text NOT NULL,
  all_projects  boolean NOT NULL DEFAULT false,
  expires_at    timestamptz,
  revoked_at    timestamptz,
  last_used_at  timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  CHECK ((type = 'pat' AND user_id IS NOT NULL AND project_id IS NULL)
      OR (type = 'api_key' AND project_id IS NOT NULL AND user_id IS NULL))
);
CREATE INDEX tokens_user_idx ON tokens (user_id);

CREATE TABLE token_projects (
  token_id    text NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,
  project_id  text NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  PRIMARY KEY (token_id, project_id)
);

-- Every secret a token ever had; rotation revokes the old one, so its holder gets TOKEN_REVOKED.
CREATE TABLE token_secrets (
  secret_hash bytea PRIMARY KEY,
  token_id    text NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX token_secrets_token_idx ON token_secrets (token_id);

-- Down Migration
DROP TABLE token_secrets;
DROP TABLE token_projects;
DROP TABLE tokens;
DROP TABLE projects;
DROP TABLE memberships;
DROP TABLE users;
DROP TABLE orgs;
