/**
 * Starts the gateway's three listeners: the public API (PORT), the internal Connect server for the admin CLI
 * and the services (ADMIN_PORT), and Prometheus metrics (METRICS_PORT). SIGTERM drains them in turn.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { Health } from '@assay/proto/grpc/health/v1/health_pb';
import { createLogger, type Logger } from '@assay/logger';
import { createPool, migrate } from '@assay/db';
import { createMetrics, createRpcClient, errorAndAccessLogInterceptor, internalAuthServerInterceptor } from '@assay/service-kit';
import { buildApp } from './app';
import type { GatewayConfig } from './config';
import { IdentityStore } from './identity/store';
import { Authenticator } from './identity/authenticator';
import { adminRoutes } from './identity/admin-rpc';
import { createServiceClients } from './plugins/app/services';
import path from 'node:path';

export interface RunningGateway {
  app: FastifyInstance;
  port: number;
  adminPort: number;
  metricsPort: number;
  logger: Logger;
  close(): Promise<void>;
}

export const IDENTITY_SCHEMA = 'identity';
export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const logger = createLogger('gateway', config.LOG_LEVEL);
  await migrate({ databaseUrl: config.DATABASE_URL, schema: IDENTITY_SCHEMA, dir: MIGRATIONS_DIR, logger });

  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: IDENTITY_SCHEMA,
    max: config.DATABASE_POOL_SIZE,
    applicationName: 'gateway',
    logger,
  });
  // No offline queue: when Redis is down a command fails at once instead of holding the request.
  const redis = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    lazyConnect: false,
  });
  redis.on('error', (err) => logger.debug({ err: { message: err.message } }, 'redis connection error'));
  const store = new IdentityStore(pool);
  const authenticator = new Authenticator(store, redis, config.AUTH_CACHE_TTL_SECONDS, logger);
  const clients = createServiceClients(config);
  const healthOpts = { internalToken: config.INTERNAL_AUTH_TOKEN, timeoutMs: 2000 };
  const healthClients = {
    'manual-testing': createRpcClient(Health, { baseUrl: config.MANUAL_TESTING_URL, ...healthOpts }),
    runs: createRpcClient(Health, { baseUrl: config.RUNS_URL, ...healthOpts }),
    analytics: createRpcClient(Health, { baseUrl: config.ANALYTICS_URL, ...healthOpts }),
    webhooks: createRpcClient(Health, { baseUrl: config.WEBHOOKS_URL, ...healthOpts }),
    reports: createRpcClient(Health, { baseUrl: config.REPORTS_URL, ...healthOpts }),
  };

  const metrics = createMetrics('gateway');
  const app = await buildApp({ config, logger, pool, redis, store, authenticator, clients, healthClients, metrics: metrics.registry });
  await app.listen({ port: config.PORT, host: config.BIND_HOST });

  // Internal Connect server: admin RPC (CLI) and identity RPC (services).
  const adminServer = http2.createServer(
    connectNodeAdapter({
      routes: (router) => adminRoutes(router, { store, auth: authenticator }),
      interceptors: [
        errorAndAccessLogInterceptor(logger),
        metrics.rpcInterceptor,
        internalAuthServerInterceptor(config.INTERNAL_AUTH_TOKEN),
      ],
    }),
  );
  await new Promise<void>((resolve, reject) => {
    adminServer.once('error', reject);
    adminServer.listen(config.ADMIN_PORT, config.BIND_HOST, () => resolve());
  });

  const metricsApp = Fastify({ logger: false });
  metricsApp.get('/metrics', async (_req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  await metricsApp.listen({ port: config.METRICS_PORT, host: config.BIND_HOST });

  const port = (app.server.address() as AddressInfo).port;
  const adminPort = (adminServer.address() as AddressInfo).port;
  const metricsPort = (metricsApp.server.address() as AddressInfo).port;
  logger.info({ port, adminPort, metricsPort }, 'gateway ready');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await app.close(); // stops accepting, waits for in-flight requests
      await new Promise<void>((resolve) => adminServer.close(() => resolve()));
      await metricsApp.close();
      redis.disconnect();
      await pool.end();
    })());
  return { app, port, adminPort, metricsPort, logger, close };
}
