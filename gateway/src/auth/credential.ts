/**
 * Which credential authentication takes for a request, decided in this one place: the auth plugin
 * (plugins/app/auth.ts) authenticates with it, and the per-token rate limit (plugins/app/rate-limit.ts) counts a
 * bearer token in its buckets before authentication has run, so the two must agree.
 */
import type { FastifyRequest } from 'fastify';
import { bearerSecretHash } from './authenticator';

export const SESSION_COOKIE = 'assay_session';

/**
 * `session`: the `assay_session` cookie (a `session` route, or a `project` / `token` route without an
 * Authorization header); `bearer`: the Authorization header of a `project` or `token` route, whether or not a cookie
 * comes too; `upload-key`: `X-API-Key`; `none`: a public route or an unknown path.
 */
export type Credential = 'none' | 'upload-key' | 'session' | 'bearer';

export function credentialOf(request: FastifyRequest): Credential {
  const mode = request.routeOptions.config.auth ?? 'none';
  if (mode === 'none' || request.is404) return 'none';
  if (mode === 'upload-key') return 'upload-key';
  if (mode === 'session' || (request.headers.authorization === undefined && request.cookies[SESSION_COOKIE] !== undefined))
    return 'session';
  return 'bearer';
}

const bearerHashes = new WeakMap<FastifyRequest, Buffer | undefined>();

/**
 * The SHA-256 of the request's bearer secret (undefined when its Authorization header holds none), once a request:
 * the per-token rate limit keys its buckets by it before authentication, which looks the token up by it. Kept with
 * the request only.
 */
export function bearerSecretHashOf(request: FastifyRequest): Buffer | undefined {
  if (!bearerHashes.has(request)) bearerHashes.set(request, bearerSecretHash(request.headers.authorization));
  return bearerHashes.get(request);
}
