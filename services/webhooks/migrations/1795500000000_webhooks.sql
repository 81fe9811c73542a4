-- Up Migration
-- Webhook subscriptions, one delivery per (event, subscription), and every attempt of every delivery.

CREATE TABLE subscriptions (
  id                   text PRIMARY KEY,
  project_id           text NOT NULL,
  url                  text NOT NULL CHECK (char_length(url) <= 2048),
  events               text[] NOT NULL CHECK (cardinality(events) >= 1),
  outcome              text NOT NULL DEFAULT 'any' CHECK (outcome IN ('any', 'failed', 'passed')),
  active               boolean NOT NULL DEFAULT true,
  description          text NOT NULL DEFAULT '' CHECK (char_length(description) <= 200),
  source               text NOT NULL DEFAULT 'api',
  -- AES-256-GCM, see src/domain/secrets.ts; never returned by a read
  secret_ciphertext    text NOT NULL,
  consecutive_failures integer NOT NULL DEFAULT 0,
  disabled_reason      text,
  last_delivery_at     timestamptz,
  created_by           text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_project_idx ON subscriptions (project_id, created_at, id);

CREATE TABLE deliveries (
  id               text PRIMARY KEY,
  subscription_id  text NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
  project_id       text NOT NULL,
  event_id         text NOT NULL,
  event            text NOT NULL,
  run_id           text NOT NULL,
  -- the exact bytes every attempt sends (signed as they are)
  payload          text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'success', 'failed')),
  -- attempts made (or started) so far
  attempt          integer NOT NULL DEFAULT 0,
  -- due time while pending; while an attempt is in flight, the end of its lease
  next_attempt_at  timestamptz,
  -- set while an attempt is in flight: only the holder of the lease may record its outcome
  lease_id         text,
  status_code      integer,
  response_ms      integer,
  error            text,
  -- when the run event happened (latency figures)
  event_at         timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  -- a replayed event never creates a second delivery
  UNIQUE (event_id, subscription_id)
);
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_subscription_idx ON deliveries (subscription_id, created_at DESC, id DESC);

CREATE TABLE delivery_attempts (
  delivery_id  text NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt      integer NOT NULL,
  status       text NOT NULL CHECK (status IN ('success', 'failed')),
  status_code  integer,
  response_ms  integer,
  error        text,
  started_at   timestamptz NOT NULL,
  finished_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (delivery_id, attempt)
);

-- Down Migration
DROP TABLE delivery_attempts;
DROP TABLE deliveries;
DROP TABLE subscriptions;
