/**
 * onRoute hook of an API scope: documents (and serializes) the error statuses an operation can answer, each
 * with the envelope, so the OpenAPI document and the fuzzer know every answer an operation can give.
 *
 * Which errors a route can answer follows from its policies (the route config and schema), never from a list
 * per route: every request may meet the per-IP limit, a failure or an unavailable service, and a known path
 * answers other methods with 405; an authenticated route adds 401, a write (or a route that needs more than
 * read access) 403, a route of a project or with path ids 404, a route with input 400, a body 408/413/415, an
 * `Idempotency-Key` 409/422, ingestion the plan quota. A handler that answers a reason its policies do not
 * imply names it in `config.errors`. The codes come from the one reason table of @assay/errors.
 */
import type { RouteOptions } from 'fastify';
import { ERROR_TABLE, Reasons, type Reason } from '@assay/errors';
import { isIdempotentRoute } from './idempotency';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Error reasons the handler answers beyond those its policies imply (e.g. 401 of a sign-in). */
    errors?: Reason[];
  }
}

export interface RoutePolicy {
  authenticated: boolean;
  auth: string;
  /** POST, PUT, PATCH: a request body. */
  body: boolean;
  /** Any method but GET/HEAD/OPTIONS. */
  write: boolean;
  /** More than read access (write, webhook management, ingestion). */
  beyondRead: boolean;
  idempotent: boolean;
  input: boolean;
  pathIds: boolean;
  limit: boolean;
  ingest: boolean;
  extra: readonly Reason[];
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function policyOf(route: Pick<RouteOptions, 'method' | 'url' | 'config' | 'schema'>): RoutePolicy {
  const method = (Array.isArray(route.method) ? route.method[0] : route.method) ?? 'GET';
  const config = route.config ?? {};
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  const auth = config.auth ?? 'none';
  const write = !SAFE_METHODS.has(method);
  const access = config.access ?? (write ? 'write' : 'read');
  const query = schema.querystring as { properties?: Record<string, unknown> } | undefined;
  return {
    authenticated: auth !== 'none',
    auth,
    body: BODY_METHODS.has(method),
    write,
    beyondRead: access !== 'read',
    idempotent: isIdempotentRoute(route),
    input: write || ['params', 'querystring', 'body', 'headers'].some((k) => schema[k] !== undefined),
    pathIds: /\/(:|\*)/.test(route.url ?? ''),
    limit: query?.properties?.limit !== undefined,
    ingest: config.rateBucket === 'ingest',
    extra: config.errors ?? [],
  };
}

/** Per reason of the table: whether a route with these policies can answer it. */
const ANSWERED_WHEN: Record<Reason, (p: RoutePolicy) => boolean> = {
  VALIDATION_ERROR: (p) => p.input,
  INVALID_LIMIT: (p) => p.limit,
  UNAUTHORIZED: (p) => p.authenticated,
  TOKEN_REVOKED: (p) => p.authenticated && p.auth !== 'session',
  TOKEN_EXPIRED: (p) => p.authenticated && p.auth !== 'session',
  // The role or token type (api keys read and ingest only), or a cookie-signed write without the CSRF header.
  FORBIDDEN: (p) => p.authenticated && (p.write || p.beyondRead),
  NOT_FOUND: (p) => p.pathIds || p.auth === 'project' || p.auth === 'upload-key',
  METHOD_NOT_ALLOWED: () => true,
  CONFLICT: (p) => p.write && p.auth === 'project',
  IDEMPOTENCY_KEY_IN_PROGRESS: (p) => p.idempotent,
  REQUEST_TIMEOUT: (p) => p.body,
  PAYLOAD_TOO_LARGE: (p) => p.body,
  UNSUPPORTED_MEDIA_TYPE: (p) => p.body,
  RANGE_NOT_SATISFIABLE: () => false,
  IDEMPOTENCY_KEY_REUSE: (p) => p.idempotent,
  // Node refuses a request line plus headers over MAX_HEADER_BYTES before any route, so every operation can
  // answer it (a long URL, as valid path and query values in non-ASCII can make, or a large cookie).
  HEADERS_TOO_LARGE: () => true,
  RATE_LIMIT_EXCEEDED: () => true,
  QUOTA_LIMIT_EXCEEDED: (p) => p.ingest && p.write,
  INTERNAL_ERROR: () => true,
  SERVICE_UNAVAILABLE: () => true,
};

/** The error reasons an operation can answer, in the order of the reason table. */
export function errorReasonsOf(route: Pick<RouteOptions, 'method' | 'url' | 'config' | 'schema'>): Reason[] {
  const p = policyOf(route);
  return Reasons.filter((r) => ANSWERED_WHEN[r](p) || p.extra.includes(r));
}

export function documentErrorResponses(route: RouteOptions): void {
  const schema = (route.schema ??= {});
  const response = (schema.response ??= {}) as Record<number, unknown>;
  for (const reason of errorReasonsOf(route)) response[ERROR_TABLE[reason].http] ??= { $ref: 'ErrorEnvelope#' };
}
