/**
 * The one way a service process starts and stops:
 *   settings → logger → migrations (advisory lock) → pool and broker → `wire(ctx)` (stores, clients, clock)
 *   → Connect server on h2c (+ gRPC health) → internal HTTP server (metrics, probes, streaming endpoints)
 *   → background workers.
 * SIGTERM/SIGINT: report NOT_SERVING, stop accepting calls, let in-flight calls finish (bounded by
 * SHUTDOWN_GRACE_MS), stop workers and consumers (they commit what they handled), close pools, exit 0.
 */
import { setMaxListeners } from 'node:events';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { DescService } from '@bufbuild/protobuf';
import type { ConnectRouter, Interceptor } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { ConfigError } from '@assay/config';
import { createLogger, runWithRequestId, sanitizeRequestId, REQUEST_ID_HEADER, type Logger } from '@assay/logger';
import { createPool, endPool, fromDatabaseError, migrate, ping, type Pool } from '@assay/db';
import { createKafkaBus, type EventBus } from '@assay/events';
import { AppError, fromConnectError, isAppError, toConnectError, toEnvelope } from '@assay/errors';
import { HealthMonitor, registerHealth, type HealthCheck } from './health';
import { createMetrics, observeReplicas, type Metrics } from './metrics';
import { boundMemory, streamPassing } from './memory';
import { callerOf, internalAuthServerInterceptor, INTERNAL_AUTH_HEADER, type Callers } from './internal-auth';
import { principalKey } from './context';
import { RPC_CONNECTION_WINDOW, RPC_STREAM_WINDOW } from './clients';
import { unaryHandler } from './unary-handler';
import { decodePrincipal, PRINCIPAL_HEADER, type Principal } from './principal';
import { callerScopeInterceptor, withCallerScope } from './caller-scope';

/** Settings every service has (see `serviceSettings` in @assay/config). */
export interface CommonSettings {
  LOG_LEVEL: string;
  DATABASE_URL: string;
  DATABASE_POOL_SIZE: number;
  KAFKA_BROKERS: string[];
  INTERNAL_AUTH_TOKEN: string;
  INTERNAL_CALLERS: Callers;
  RPC_PORT: number;
  HTTP_PORT: number;
  BIND_HOST: string;
  SHUTDOWN_GRACE_MS: number;
}

export interface ServiceContext<C extends CommonSettings = CommonSettings> {
  name: string;
  config: C;
  logger: Logger;
  pool: Pool;
  /** Present when the definition asked for Kafka. */
  bus?: EventBus;
  metrics: Metrics;
  health: HealthMonitor;
}

/** A long-running loop of the service (consumer, dispatcher, sweeper, relay). */
export interface Worker {
  name: string;
  start(): Promise<void>;
  /** Finishes the unit of work in hand, then returns. */
  stop(): Promise<void>;
}

/**
 * A service, declared: what it is called, where its tables live, and how it is wired. `wire(ctx)` runs once
 * per process and builds everything the handlers and workers share (stores, RPC clients of other services,
 * the clock); `routes`, `http`, `workers` and `checks` receive what it built.
 */
export interface ServiceDefinition<C extends CommonSettings, W = unknown> {
  /** Short name, e.g. `manual-testing`; also the gRPC health service name besides "". */
  name: string;
  config: C;
  db: { schema: string; migrationsDir: string };
  /** Connect to Kafka and include the broker in health. */
  kafka?: boolean;
  wire(ctx: ServiceContext<C>): W;
  routes(router: ConnectRouter, wiring: W): void;
  /** Extra routes on the internal HTTP port; they receive the caller principal as `request.principal`. */
  http?(app: FastifyInstance, wiring: W): void | Promise<void>;
  workers?(wiring: W): Worker[];
  checks?(wiring: W): HealthCheck[];
  /** RPC services only the admin CLI's credential may call (tokens, roles, rules, plans, rebuilds). */
  adminServices?: DescService[];
  healthIntervalMs?: number;
}

/** Declares a service (types the wiring once, for `routes`, `http`, `workers` and `checks`). */
export function defineService<C extends CommonSettings, W>(def: ServiceDefinition<C, W>): ServiceDefinition<C, W> {
  return def;
}

export interface RunningService<C extends CommonSettings = CommonSettings, W = unknown> {
  ctx: ServiceContext<C>;
  wiring: W;
  rpcPort: number;
  httpPort: number;
  close(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export function requestContextInterceptor(): Interceptor {
  return (next) => (req) => {
    const id = sanitizeRequestId(req.header.get(REQUEST_ID_HEADER)) ?? randomUUID();
    return runWithRequestId(id, () => next(req));
  };
}

/**
 * Errors and the access log of every Connect server: one log line per RPC (method, outcome, duration; the
 * request id comes from the log mixin), and any thrown value mapped to a ConnectError with its reason.
 */
export function errorAndAccessLogInterceptor(logger: Logger): Interceptor {
  return (next) => async (req) => {
    const method = `${req.service.typeName}/${req.method.name}`;
    const started = performance.now();
    const done = (outcome: string) => ({ method, outcome, ms: Math.round((performance.now() - started) * 10) / 10 });
    try {
      const res = await next(req);
      // Probes would drown the log.
      if (req.service.typeName !== 'grpc.health.v1.Health') logger.info(done('ok'), 'rpc');
      return res;
    } catch (thrown) {
      const err = fromDatabaseError(thrown) ?? thrown;
      if (isAppError(err)) logger.info({ ...done(err.reason), detail: err.message }, 'rpc');
      else if (err instanceof Error && err.name === 'ConnectError') logger.info(done('connect-error'), 'rpc');
      else logger.error({ ...done('INTERNAL_ERROR'), err }, 'unhandled error in RPC handler');
      throw toConnectError(err);
    }
  };
}

export function principalInterceptor(): Interceptor {
  return (next) => (req) => {
    req.contextValues.set(principalKey, decodePrincipal(req.header.get(PRINCIPAL_HEADER)));
    return next(req);
  };
}

/**
 * What every call into a service's handlers goes through, whatever the transport: the request id, the caller's
 * scope (its transactions commit only while it waits), the error mapping and access log, and the caller principal.
 * (startService adds metrics, the in-flight count and the internal authentication around them; handler tests use
 * exactly these four over an in-memory transport.)
 */
export function handlerInterceptors(logger: Logger): Interceptor[] {
  return [requestContextInterceptor(), callerScopeInterceptor(), errorAndAccessLogInterceptor(logger), principalInterceptor()];
}

export async function startService<C extends CommonSettings, W>(def: ServiceDefinition<C, W>): Promise<RunningService<C, W>> {
  const { config } = def;
  const logger = createLogger(def.name, config.LOG_LEVEL);
  boundMemory();

  await migrate({ databaseUrl: config.DATABASE_URL, schema: def.db.schema, dir: def.db.migrationsDir, logger });

  const pool = createPool({
    connectionString: config.DATABASE_URL,
    schema: def.db.schema,
    max: config.DATABASE_POOL_SIZE,
    applicationName: def.name,
    logger,
  });
  const bus = def.kafka ? createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: def.name, logger }) : undefined;
  const metrics = createMetrics(def.name);
  const unobserve = observeReplicas(logger, metrics.registry);
  const checks: HealthCheck[] = [{ name: 'postgres', check: () => ping(pool) }];
  if (bus) checks.push({ name: 'kafka', check: () => bus.ping() });
  const health = new HealthMonitor(checks, def.healthIntervalMs ?? 2000, logger);
  const ctx: ServiceContext<C> = { name: def.name, config, logger, pool, bus, metrics, health };
  const wiring = def.wire(ctx);
  for (const c of def.checks?.(wiring) ?? []) checks.push(c);
  await health.start();

  // ---- Connect server (h2c) ------------------------------------------------------------------
  let inFlight = 0;
  const inFlightInterceptor: Interceptor = (next) => async (req) => {
    inFlight++;
    try {
      return await next(req);
    } finally {
      inFlight--;
    }
  };
  const shutdownController = new AbortController();
  // Every in-flight call listens on this one signal: many concurrent calls are normal, not a leak.
  setMaxListeners(0, shutdownController.signal);
  const routes = (router: ConnectRouter) => {
    registerHealth(router, health, [def.name]);
    def.routes(router, wiring);
  };
  const interceptors = [
    requestContextInterceptor(),
    callerScopeInterceptor(),
    errorAndAccessLogInterceptor(logger),
    metrics.rpcInterceptor,
    inFlightInterceptor,
    internalAuthServerInterceptor(config.INTERNAL_CALLERS, new Set((def.adminServices ?? []).map((d) => d.typeName))),
    principalInterceptor(),
  ];
  const readMaxBytes = 64 * 1024 * 1024;
  // Internal callers' unary calls take the fast path (unary-handler.ts); the rest, probes included, Connect's.
  const unary = unaryHandler({ interceptors, readMaxBytes, shutdownSignal: shutdownController.signal });
  const connectHandler = connectNodeAdapter({
    routes: unary.routes(routes),
    interceptors,
    readMaxBytes,
    shutdownSignal: shutdownController.signal,
  });
  const handler = (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => {
    if (!unary.handle(req, res)) connectHandler(req, res);
  };
  // The receive windows of clients.ts, for what callers send (RPC_STREAM_WINDOW there says why).
  const rpcServer = http2.createServer({ settings: { initialWindowSize: RPC_STREAM_WINDOW } }, handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  rpcServer.on('session', (s) => {
    s.setLocalWindowSize(RPC_CONNECTION_WINDOW);
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    rpcServer.once('error', reject);
    rpcServer.listen(config.RPC_PORT, config.BIND_HOST, () => resolve());
  });

  // ---- internal HTTP server --------------------------------------------------------------------
  const app = Fastify({
    loggerInstance: logger.child({ component: 'http' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
  });
  app.setErrorHandler((err, _request, reply) => {
    // The same mapping as the RPC path: input the database refuses is a 400, a database away a 503.
    const appErr = isAppError(err) ? err : (fromDatabaseError(err) ?? fromConnectError(err));
    if (appErr.reason === 'INTERNAL_ERROR') logger.error({ err }, 'unhandled error on internal HTTP port');
    reply
      .code(appErr.httpStatus)
      .headers(appErr.headers ?? {})
      .send(toEnvelope(appErr));
  });
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const serving = health.isServing();
    reply.code(serving ? 200 : 503);
    return { status: serving ? 'SERVING' : 'NOT_SERVING', dependencies: health.results };
  });
  if (def.http) {
    await app.register(async (scoped) => {
      scoped.addHook('onRequest', async (request) => {
        if (!callerOf(request.headers[INTERNAL_AUTH_HEADER] as string | undefined, config.INTERNAL_CALLERS)) {
          throw new AppError('UNAUTHORIZED', 'internal authentication required');
        }
        request.principal = decodePrincipal(request.headers[PRINCIPAL_HEADER] as string | undefined);
      });
      // These routes are the streaming ones (uploads, downloads): their buffers are what boundMemory's watcher is for.
      scoped.addHook('onRequest', async (_request, reply) => {
        reply.raw.once('close', streamPassing());
      });
      scoped.addHook('onRoute', withCallerScope);
      await def.http!(scoped, wiring);
    });
  }
  await app.listen({ port: config.HTTP_PORT, host: config.BIND_HOST });

  // ---- workers ---------------------------------------------------------------------------------
  const workers = def.workers?.(wiring) ?? [];
  for (const w of workers) {
    await w.start();
    logger.info({ worker: w.name }, 'worker started');
  }

  const rpcPort = (rpcServer.address() as AddressInfo).port;
  const httpPort = (app.server.address() as AddressInfo).port;
  logger.info({ rpcPort, httpPort }, `${def.name} ready`);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      logger.info('draining');
      health.setDraining();
      rpcServer.close();
      // GOAWAY: in-flight streams finish (responses included), no new ones start; a session closes once empty.
      const open = [...sessions].filter((x) => !x.closed);
      const allClosed = Promise.all(open.map((x) => new Promise<void>((resolve) => x.once('close', () => resolve()))));
      for (const x of open) x.close();
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), config.SHUTDOWN_GRACE_MS);
      });
      if ((await Promise.race([allClosed, graceOver])) === 'timeout') {
        logger.warn({ inFlight }, 'grace period over; cancelling in-flight calls');
        shutdownController.abort();
        for (const x of sessions) x.destroy();
      }
      clearTimeout(timer);
      for (const w of [...workers].reverse()) {
        await w.stop().catch((err) => logger.error({ err, worker: w.name }, 'worker stop failed'));
      }
      health.stop();
      unobserve();
      await app.close();
      await bus?.close();
      await endPool(pool);
      logger.info('stopped');
    })());

  return { ctx, wiring, rpcPort, httpPort, close };
}

/** Applies the service's migrations and returns (the `migrate` command, e.g. a Helm hook Job). */
export async function runMigrations<C extends CommonSettings, W>(def: ServiceDefinition<C, W>): Promise<string[]> {
  const logger = createLogger(def.name, def.config.LOG_LEVEL);
  const applied = await migrate({ databaseUrl: def.config.DATABASE_URL, schema: def.db.schema, dir: def.db.migrationsDir, logger });
  logger.info({ schema: def.db.schema, applied }, 'migrations applied');
  return applied;
}

/**
 * Process entry: `node dist/main.js` starts the service and wires SIGTERM/SIGINT to a graceful stop;
 * `node dist/main.js migrate` only applies migrations. A bad setting prints one clear message, exit 1.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any service's settings
export function runMain(define: () => ServiceDefinition<any, any>): void {
  const fail = (err: unknown) => {
    if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else process.stderr.write(`failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  };
  let def: ServiceDefinition<CommonSettings, unknown>;
  try {
    def = define();
  } catch (err) {
    return fail(err);
  }
  if (process.argv[2] === 'migrate') {
    runMigrations(def).then(() => process.exit(0), fail);
    return;
  }
  // Signals are handled from the first moment: a SIGTERM while the service is still starting (its port may
  // already answer while workers start) waits for the start to finish, then drains, instead of killing it.
  const started = startService(def);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => process.exit(1), def.config.SHUTDOWN_GRACE_MS + 5000);
    timer.unref();
    started.then(
      (svc) => {
        svc.ctx.logger.info({ signal }, 'shutdown requested');
        svc.close().then(
          () => process.exit(0),
          (err) => {
            svc.ctx.logger.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      },
      () => undefined, // the start failed: `fail` below exits
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  started.catch(fail);
}
