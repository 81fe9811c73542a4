-- Up Migration
-- Generations of what the gateway's auth cache holds: a token's is bumped when it is revoked or rotated, a
-- user's when one of the user's roles changes. A cached entry records the generations it was read at and is
-- reused only while they are still current, so no entry read before a revocation outlives it.
ALTER TABLE tokens ADD COLUMN generation bigint NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN auth_generation bigint NOT NULL DEFAULT 0;

-- Down Migration
ALTER TABLE users DROP COLUMN auth_generation;
ALTER TABLE tokens DROP COLUMN generation;
