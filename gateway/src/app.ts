/**
 * The gateway as a Fastify plugin tree (fastify/demo layout): external plugins (security headers, OpenAPI),
 * app plugins (errors, validation, input limits, services, per-IP rate limit, auth, per-token rate limits,
 * idempotency), then the route families. The policies are root hooks driven by route config, so they wrap
 * every route, present and future. `buildApp` is used by the server and by tests.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import zlib from 'node:zlib';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import compressPlugin from '@fastify/compress';
import type { Redis } from 'ioredis';
import type { Client } from '@connectrpc/connect';
import { httpMetrics, type Metrics } from '@assay/service-kit';
import { Health, HealthCheckResponse_ServingStatus } from '@assay/proto/grpc/health/v1/health_pb';
import { sanitizeRequestId, REQUEST_ID_HEADER, type Logger } from '@assay/logger';
import type { GatewayConfig } from './config';
import errorsPlugin from './plugins/app/errors';
import validationPlugin from './plugins/app/validation';
import servicesPlugin, { type ServiceClients } from './plugins/app/services';
import authPlugin, { authorizePlugin } from './plugins/app/auth';
import { ipRateLimit, tokenRateLimit, RateLimitPolicy } from './plugins/app/rate-limit';
import idempotencyPlugin from './plugins/app/idempotency';
import inputLimitsPlugin, { clientErrorHandler, frameworkErrors } from './plugins/app/input-limits';
import securityPlugin from './plugins/external/security';
import { sharedSerializers } from './plugins/app/compilers';
import openapiPlugin from './plugins/external/openapi';
import webPlugin from './plugins/external/web';
import traceViewerPlugin from './plugins/external/trace-viewer';
import publicApi, { ALIAS_PREFIX, PUBLIC_PREFIX } from './routes/public-api';
import { compatUpload, ingestApi, INGEST_PREFIX } from './routes/ingest';
import { artifactRoutes } from './routes/artifacts';
import appApi, { APP_PREFIX } from './routes/app';
import { mcpRoutes, type McpHttpModule } from './routes/mcp';
import cookiesPlugin from './plugins/app/cookies';
import type { Authenticator } from './auth/authenticator';

/** Content types worth compressing: text (not event streams), JSON, JavaScript and SVG. */
const COMPRESSIBLE = /^text\/(?!event-stream)|[+/]json(?:;|$)|^application\/javascript|^image\/svg\+xml/;

/** web/dist of this installation (next to the gateway workspace, in the repository and in the image). */
export const DEFAULT_WEB_ROOT = path.resolve(__dirname, '..', '..', 'web', 'dist');

export interface AppDeps {
  config: GatewayConfig;
  logger: Logger;
  redis: Redis;
  authenticator: Authenticator;
  clients: ServiceClients;
  /** Health clients of the services, for /readyz. */
  healthClients: Record<string, Client<typeof Health>>;
  /** Where the public traffic is counted and timed (served on METRICS_PORT); none in tests that skip it. */
  metrics?: Metrics['registry'];
  /** Loads @assay/mcp, served at /mcp (server.ts; the first /mcp request loads it; without it /mcp answers 503). */
  mcp?: () => Promise<McpHttpModule>;
  /** Tests only: a shorter idempotency lock lease than CONTRACT §4's 60 s. */
  idempotencyLeaseMs?: number;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Probes would drown the log.
    logController: new LogController({ disableRequestLogging: (req: { url?: string }) => req.url === '/healthz' || req.url === '/readyz' }),
    genReqId: (req) => sanitizeRequestId(req.headers[REQUEST_ID_HEADER]) ?? randomUUID(),
    // Client IP: the socket, or X-Forwarded-For through exactly TRUSTED_PROXY_HOPS trusted proxies.
    trustProxy: (_address: string, hop: number) => hop < config.TRUSTED_PROXY_HOPS,
    bodyLimit: config.PUBLIC_BODY_LIMIT_BYTES,
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    http: {
      maxHeaderSize: config.MAX_HEADER_BYTES,
      // Node only enforces these when given at construction (Fastify sets requestTimeout afterwards as well).
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      headersTimeout: Math.min(60000, config.REQUEST_TIMEOUT_MS),
      // How often Node looks for requests past requestTimeout (its default, 30 s, would make the limit loose).
      connectionsCheckingInterval: Math.min(30000, Math.max(250, Math.floor(config.REQUEST_TIMEOUT_MS / 4))),
    },
    clientErrorHandler,
    frameworkErrors,
    // Requests arriving while draining get a 503 envelope from the input-limits plugin instead.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: { customOptions: { removeAdditional: false } },
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers() } },
  });
  if (deps.metrics) httpMetrics(app, deps.metrics);
  // JSON only: anything else is 415 UNSUPPORTED_MEDIA_TYPE (Fastify would otherwise accept text/plain).
  app.removeContentTypeParser('text/plain');
  app.addHook('onSend', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });

  // Answers compressed (brotli, else gzip) for a client that accepts it: JSON, text, HTML, scripts and SVG of 1 KB or
  // more. Added to each route as its last onSend hook, so the idempotency records and everything else see the answer
  // as it is. Event streams, partial content and artifacts (routes/artifacts.ts: bytes as stored, with their length
  // and ranges) are sent as they are, and so are the web app's assets, which come compressed from the build. Request
  // bodies are never inflated (a compressed body is refused as any non-JSON body).
  await app.register(compressPlugin, {
    encodings: ['br', 'gzip'],
    // Quality 4 (the plugin's choice) with a 256 KB window instead of 4 MB: half the memory a stream holds (16 answers
    // of 1.5 MB at once: 23 MB against 46), and no more bytes (a 10,000-test run page's answers: 203 KB, 206 before).
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_LGWIN]: 18 } },
    customTypes: COMPRESSIBLE,
    globalDecompression: false,
  });
  await app.register(errorsPlugin);
  await app.register(validationPlugin);
  await app.register(securityPlugin);
  await app.register(inputLimitsPlugin, { ingestBodyLimit: config.INGEST_BODY_LIMIT_BYTES });
  await app.register(openapiPlugin, { docs: config.DOCS_ENABLED });
  await app.register(webPlugin, { root: config.WEB_ROOT || DEFAULT_WEB_ROOT });
  await app.register(traceViewerPlugin);
  await app.register(servicesPlugin, { clients: deps.clients });
  const rateLimits = new RateLimitPolicy(deps.redis, config.RATE_LIMITS);
  await app.register(ipRateLimit, { policy: rateLimits });
  await app.register(cookiesPlugin);
  await app.register(authPlugin, { authenticator: deps.authenticator });
  await app.register(tokenRateLimit, { policy: rateLimits });
  await app.register(authorizePlugin, { authenticator: deps.authenticator });
  await app.register(idempotencyPlugin, {
    redis: deps.redis,
    ttlSeconds: config.IDEMPOTENCY_TTL_SECONDS,
    streamedBodyLimit: config.INGEST_BODY_LIMIT_BYTES,
    leaseMs: deps.idempotencyLeaseMs,
  });

  // Probes are neither authenticated nor rate-limited.
  const probe = { schema: { hide: true }, config: { rateLimit: false as const } };
  app.get('/healthz', probe, async () => ({ status: 'ok' }));
  // Ready = what every request needs answers: Redis (rate limits, idempotency) and identity (authentication).
  // The other services' health is reported but does not count: with one service down the other routes keep
  // working and its own routes answer 503 SERVICE_UNAVAILABLE, instead of every gateway pod leaving rotation.
  app.get('/readyz', probe, async (_request, reply) => {
    const services: Record<string, boolean> = {};
    await Promise.all(
      Object.entries(deps.healthClients).map(async ([name, client]) => {
        services[name] = await client.check({ service: '' }, { timeoutMs: 2000 }).then(
          (r) => r.status === HealthCheckResponse_ServingStatus.SERVING,
          () => false,
        );
      }),
    );
    const checks: Record<string, boolean> = {
      redis: await deps.redis.ping().then(
        (r) => r === 'PONG',
        () => false,
      ),
      identity: services.identity ?? false,
    };
    const ready = Object.values(checks).every(Boolean);
    reply.code(ready ? 200 : 503);
    return { status: ready ? 'ready' : 'not ready', checks, services };
  });

  for (const prefix of [PUBLIC_PREFIX, ALIAS_PREFIX]) {
    await app.register(publicApi, { prefix, alias: prefix === ALIAS_PREFIX, rateLimits: config.RATE_LIMITS });
  }
  const ingest = {
    authenticator: deps.authenticator,
    internalToken: config.INTERNAL_AUTH_TOKEN,
    bodyLimit: config.INGEST_BODY_LIMIT_BYTES,
    artifactLimit: config.ARTIFACT_MAX_FILE_BYTES,
    timeoutMs: config.REQUEST_TIMEOUT_MS * 4,
    upload: { idleMs: config.ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS, drainMs: config.REQUEST_TIMEOUT_MS },
  };
  await app.register(ingestApi, { prefix: INGEST_PREFIX, ...ingest });
  await app.register(appApi, { prefix: APP_PREFIX, redis: deps.redis, publicUiUrl: config.PUBLIC_UI_URL });
  await app.register(compatUpload, ingest);
  await app.register(artifactRoutes, ingest);
  await app.register(mcpRoutes, { root: app, mcp: deps.mcp });
  return app;
}
