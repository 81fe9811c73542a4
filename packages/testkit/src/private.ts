/**
 * Private copies for tests that need another configuration than the shared test system: a Redis of their
 * own (which they may stop and start), and a gateway process with other settings (default rate limits,
 * trusted proxies, short timeouts) pointed at the shared system's database and services. Each test file
 * stops what it started in `afterAll`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SHARED_GATEWAY_RATE_LIMITS_ENV, testSystem } from './context';
import { createDatabase } from './databases';
import { Admin } from './fixtures';
import { startSystemOnFreePorts, type RunningSystem } from './system';
import { Api } from './http';
import { componentScript } from './infra';
import { freePorts } from './ports';
import { startProcess, tail, waitUntil, type ManagedProcess } from './processes';
import { ADMIN, addressEnv, credentialEnv, GATEWAY } from './topology';

export interface PrivateRedis {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it and deletes its data folder. */
  remove(): Promise<void>;
}

/** A Redis process of its own on a free port (scripts/infra/redis.sh with a private data dir). */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-redis-'));
  const [port] = await freePorts(1);
  const env: NodeJS.ProcessEnv = { ...process.env, ASSAY_DATA_DIR: dataDir, REDIS_PORT: String(port) };
  delete env.REDIS_URL;
  const start = () => componentScript('redis', 'start', env);
  const stop = () => componentScript('redis', 'stop', env);
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    remove: async () => {
      await stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface PrivatePostgres {
  /** postgres://assay:assay@127.0.0.1:<port>/assay */
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  remove(): Promise<void>;
}

/** A Postgres server of its own on a free port (scripts/infra/postgres.sh with a private data dir), to stop in a test. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-pg-'));
  fs.chmodSync(dataDir, 0o755);
  const [port] = await freePorts(1);
  const env: NodeJS.ProcessEnv = { ...process.env, ASSAY_DATA_DIR: dataDir, PG_PORT: String(port) };
  delete env.DATABASE_URL;
  const start = () => componentScript('postgres', 'start', env);
  const stop = () => componentScript('postgres', 'stop', env);
  await start();
  return {
    url: `postgres://assay:assay@127.0.0.1:${port}/assay`,
    start,
    stop,
    remove: async () => {
      await stop().catch(() => undefined);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface PrivateGateway {
  url: string;
  /** Its Prometheus metrics (`GET /metrics`). */
  metricsUrl: string;
  process: ManagedProcess;
  /** A client of this gateway (public API prefix). */
  api(token?: string): Api;
  stop(): Promise<void>;
}

/**
 * A second gateway process with its own settings (`env` overrides, e.g. RATE_LIMITS, TRUSTED_PROXY_HOPS,
 * REDIS_URL), sharing the test system's Postgres and services. Its rate limits are the defaults unless
 * `env.RATE_LIMITS` says otherwise (the shared test gateway's are raised; see the jest global setup).
 */
export async function startPrivateGateway(opts: { name: string; env?: Record<string, string> }): Promise<PrivateGateway> {
  const s = testSystem();
  const [port, metricsPort] = await freePorts(2);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'development',
    NODE_OPTIONS: '--enable-source-maps',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    ...s.infra,
    ...addressEnv(s.ports),
    // The shared gateway's credential: the services accept it.
    ...credentialEnv(GATEWAY.name, s.credentials),
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    ...opts.env,
  };
  const proc = startProcess({ name: `gateway-${opts.name}-${port}`, dir: GATEWAY.dir, env, logDir: s.logDir });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntil(
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`exited with ${proc.child.exitCode}:\n${tail(proc.logFile)}`);
        const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
        return res?.status === 200;
      },
      60000,
      () => `private gateway ${opts.name} did not start; log ${proc.logFile}:\n${tail(proc.logFile)}`,
    );
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return {
    url,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    process: proc,
    api: (token?: string) => new Api(url, token),
    stop: async () => void (await proc.stop()),
  };
}

export interface PrivateSystem {
  system: RunningSystem;
  admin: Admin;
  api(token?: string): Api;
  stop(): Promise<void>;
}

/**
 * The whole system again, on a database of its own, for a test that needs services with other settings
 * (`envFor`: e.g. webhooks retrying in milliseconds). It shares the test Redis and Kafka, so its gateway gets
 * the shared gateway's raised rate limits (one address, one Redis: the spec limits are tested elsewhere), and a
 * consumer that must not split partitions with the shared system needs its own group in `envFor`.
 */
export async function startPrivateSystem(opts: { name: string; envFor?: Record<string, Record<string, string>> }): Promise<PrivateSystem> {
  const shared = testSystem();
  const databaseUrl = await createDatabase(shared.infra.DATABASE_URL, `assay_${opts.name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`);
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), `assay-${opts.name}-`));
  // Its analytics consumes the shared topic in a group of its own (the shared system's analytics keeps every
  // partition of the default group).
  const envFor = {
    ...opts.envFor,
    analytics: { ANALYTICS_CONSUMER_GROUP: `analytics-${opts.name}-${randomBytes(4).toString('hex')}`, ...opts.envFor?.analytics },
    gateway: { RATE_LIMITS: SHARED_GATEWAY_RATE_LIMITS_ENV, ...opts.envFor?.gateway },
  };
  const system = await startSystemOnFreePorts({
    infra: { ...shared.infra, DATABASE_URL: databaseUrl },
    logDir,
    logLevel: 'warn',
    envFor,
    extraCallers: [ADMIN],
  });
  return {
    system,
    admin: new Admin(system.adminUrl, system.internalToken),
    api: (token) => new Api(system.gatewayUrl, token),
    stop: () => system.stop(),
  };
}
