/**
 * The public API scope, mounted at /api/v1/public and again at the /api/public/v1 alias. Routes inside
 * authenticate by default (`config.auth = 'project'`), document every error envelope, and are hidden from
 * OpenAPI under the alias.
 */
import path from 'node:path';
import autoload from '@fastify/autoload';
import type { FastifyInstance } from 'fastify';
import type { IdentityStore } from '../identity/store';
import type { RateLimits } from '../config';

export const PUBLIC_PREFIX = '/api/v1/public';
export const ALIAS_PREFIX = '/api/public/v1';

const ERROR_STATUSES = [400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 500, 503];

export interface PublicApiOptions {
  alias: boolean;
  store: IdentityStore;
  rateLimits: RateLimits;
}

export default async function publicApi(app: FastifyInstance, opts: PublicApiOptions) {
  app.addHook('onRoute', (route) => {
    route.config = { auth: 'project', ...(route.config ?? {}) };
    const schema = (route.schema ??= {});
    if (opts.alias) schema.hide = true;
    const response = (schema.response ??= {}) as Record<number, unknown>;
    for (const status of ERROR_STATUSES) response[status] ??= { $ref: 'ErrorEnvelope#' };
  });
  await app.register(autoload, {
    dir: path.join(__dirname, 'public'),
    dirNameRoutePrefix: false,
    maxDepth: 2,
    options: { store: opts.store, rateLimits: opts.rateLimits },
  });
}
