/**
 * Starts the gateway's two listeners: the public API (PORT) and Prometheus metrics (METRICS_PORT). The gateway
 * holds no data of its own: it authenticates through the identity service and keeps only Redis state (rate
 * limits, idempotency keys, the auth cache). SIGTERM drains the public listener, then the metrics one.
 */
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { connectRedis } from './redis';
import { Health } from '@assay/proto/grpc/health/v1/health_pb';
import { createLogger, type Logger } from '@assay/logger';
import { boundMemory, createMetrics, createRpcClient, observeReplicas } from '@assay/service-kit';
import { buildApp } from './app';
import type { GatewayConfig } from './config';
import { Authenticator } from './auth/authenticator';
import { createServiceClients } from './plugins/app/services';
import type { McpHttpModule } from './routes/mcp';

/**
 * @assay/mcp, loaded rather than imported: it is built after the gateway (its API client is generated from this
 * gateway's OpenAPI document), so the gateway cannot see its types when it compiles. Loaded by the first /mcp
 * request, not at start: the MCP SDK and zod hold ~6 MB of a gateway's idle memory that most never use.
 */
async function loadMcp(): Promise<McpHttpModule> {
  const name = '@assay/mcp';
  const mod = (await import(name)) as Partial<McpHttpModule>;
  if (typeof mod.handleMcpHttpRequest !== 'function') throw new Error(`${name} does not export handleMcpHttpRequest`);
  return mod as McpHttpModule;
}

export interface RunningGateway {
  app: FastifyInstance;
  port: number;
  metricsPort: number;
  logger: Logger;
  close(): Promise<void>;
}

export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const logger = createLogger('gateway', config.LOG_LEVEL);
  boundMemory();
  const redis = connectRedis(config.REDIS_URL);
  redis.on('error', (err) => logger.debug({ err: { message: err.message } }, 'redis connection error'));
  const clients = createServiceClients(config);
  const authenticator = new Authenticator(clients.auth, redis, config.AUTH_CACHE_TTL_SECONDS, logger);
  const healthOpts = { internalToken: config.INTERNAL_AUTH_TOKEN, timeoutMs: 2000 };
  const healthClients = {
    identity: createRpcClient(Health, { baseUrl: config.IDENTITY_URL, ...healthOpts }),
    'manual-testing': createRpcClient(Health, { baseUrl: config.MANUAL_TESTING_URL, ...healthOpts }),
    runs: createRpcClient(Health, { baseUrl: config.RUNS_URL, ...healthOpts }),
    analytics: createRpcClient(Health, { baseUrl: config.ANALYTICS_URL, ...healthOpts }),
    webhooks: createRpcClient(Health, { baseUrl: config.WEBHOOKS_URL, ...healthOpts }),
    reports: createRpcClient(Health, { baseUrl: config.REPORTS_URL, ...healthOpts }),
  };

  const metrics = createMetrics('gateway');
  const unobserve = observeReplicas(logger, metrics.registry);
  const app = await buildApp({ config, logger, redis, authenticator, clients, healthClients, metrics: metrics.registry, mcp: loadMcp });
  await app.listen({ port: config.PORT, host: config.BIND_HOST });

  const metricsApp = Fastify({ logger: false });
  metricsApp.get('/metrics', async (_req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  await metricsApp.listen({ port: config.METRICS_PORT, host: config.BIND_HOST });

  const port = (app.server.address() as AddressInfo).port;
  const metricsPort = (metricsApp.server.address() as AddressInfo).port;
  logger.info({ port, metricsPort }, 'gateway ready');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await app.close(); // stops accepting, waits for in-flight requests
      await metricsApp.close();
      unobserve();
      redis.disconnect();
    })());
  return { app, port, metricsPort, logger, close };
}
