/**
 * Writes the OpenAPI document the gateway serves at /api/openapi.json to a file, without starting anything:
 * the app is built with clients that are never called and a Redis client that never connects. The typed client
 * @assay/client (packages/client), which the web app uses too, is generated from this file (`npm run build`), so
 * its shapes cannot drift from the API.
 *
 *   node gateway/dist/openapi-export.js OUT.json
 */
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { createLogger } from '@assay/logger';
import { buildApp } from './app';
import { Authenticator } from './auth/authenticator';
import { loadGatewayConfig } from './config';
import { createServiceClients } from './plugins/app/services';

export async function openapiDocument(): Promise<unknown> {
  const config = loadGatewayConfig({ INTERNAL_AUTH_TOKEN: 'x'.repeat(32), DOCS_ENABLED: 'false', LOG_LEVEL: 'silent' });
  const logger = createLogger('openapi-export', 'silent');
  const redis = new Redis({ lazyConnect: true, enableOfflineQueue: false });
  const clients = createServiceClients(config);
  const authenticator = new Authenticator(clients.auth, redis, config.AUTH_CACHE_TTL_SECONDS, logger);
  const app = await buildApp({ config, logger, redis, authenticator, clients, healthClients: {} });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    redis.disconnect();
  }
}

if (require.main === module) {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write('usage: node openapi-export.js OUT.json\n');
    process.exit(2);
  }
  openapiDocument().then(
    (doc) => {
      fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
      fs.writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
    },
    (err: unknown) => {
      process.stderr.write(`openapi export failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
