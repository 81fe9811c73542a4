-- Up Migration
-- The Idempotency-Key records of ingestion (the service kit's idempotentTransaction): the record's name (a hash of
-- the token, method, path and key), the body's fingerprint and the answer, sealed with a key derived from the
-- client's credential, written in the ingestion's own transaction. The gateway's copy in Redis is written only after
-- the answer: this one covers a service or gateway that died between the commit and the answer. Records past the
-- replay window are dropped as new ones come.
CREATE TABLE idempotency_keys (
  record       text PRIMARY KEY,
  fingerprint  text NOT NULL,
  answer       bytea,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);

-- Down Migration
DROP TABLE idempotency_keys;
