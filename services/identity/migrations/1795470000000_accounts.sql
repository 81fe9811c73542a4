-- Up Migration
-- Accounts of the web app: a password (argon2id, never the password itself), sessions and invitations.
-- Only SHA-256 of a session id or an invitation token is stored: the secrets live in the browser and the link.
ALTER TABLE users ADD COLUMN password_hash text;

CREATE TABLE sessions (
  id               text PRIMARY KEY,
  secret_hash      bytea NOT NULL UNIQUE,
  user_id          text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_seen_at     timestamptz NOT NULL DEFAULT now(),
  -- idle expiry (moves with use) and absolute expiry (fixed at sign-in)
  idle_expires_at  timestamptz NOT NULL,
  expires_at       timestamptz NOT NULL,
  revoked_at       timestamptz,
  user_agent       text,
  ip               text
);
CREATE INDEX sessions_user_idx ON sessions (user_id);

-- A one-time link: an invitation (the user chooses a password, then is signed in) or a sign-in link (signed in
-- directly: what `make up` prints for the demo user).
CREATE TABLE invitations (
  token_hash  bytea PRIMARY KEY,
  user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose     text NOT NULL DEFAULT 'invitation' CHECK (purpose IN ('invitation', 'sign-in')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX invitations_user_idx ON invitations (user_id);

-- Down Migration
DROP TABLE invitations;
DROP TABLE sessions;
ALTER TABLE users DROP COLUMN password_hash;
