/**
 * The public API scope, mounted at /api/v1/public and again at the /api/public/v1 alias. Routes inside
 * authenticate by default (`config.auth = 'project'`), document every error envelope, and are hidden from
 * OpenAPI under the alias.
 */
import path from 'node:path';
import autoload from '@fastify/autoload';
import type { FastifyInstance } from 'fastify';
import { documentErrorResponses } from '../plugins/app/error-responses';
import type { RateLimits } from '../config';

export const PUBLIC_PREFIX = '/api/v1/public';
export const ALIAS_PREFIX = '/api/public/v1';

export interface PublicApiOptions {
  alias: boolean;
  rateLimits: RateLimits;
}

export default async function publicApi(app: FastifyInstance, opts: PublicApiOptions) {
  app.addHook('onRoute', (route) => {
    route.config = { auth: 'project', ...(route.config ?? {}) };
    if (opts.alias) (route.schema ??= {}).hide = true;
    documentErrorResponses(route);
  });
  await app.register(autoload, {
    dir: path.join(__dirname, 'public'),
    dirNameRoutePrefix: false,
    maxDepth: 2,
    options: { rateLimits: opts.rateLimits },
  });
}
