/**
 * The fast test tier (`npm run test:unit`): handler modules through an in-memory Connect transport against a
 * Postgres schema of their own, gateway route families through `app.inject` with in-memory service clients.
 * Real Postgres and Redis (never a fake), but no Kafka and no process of the system: the tier's global setup
 * starts only those two (`startUnitInfra`); inside the full `make test` run it uses the full system's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DescService } from '@bufbuild/protobuf';
import { createClient, createRouterTransport, type Client, type ConnectRouter } from '@connectrpc/connect';
import { createPool, endPool, migrate, type Pool } from '@assay/db';
import { createLogger, type Logger } from '@assay/logger';
import {
  asPrincipal,
  createMetrics,
  handlerInterceptors,
  HealthMonitor,
  type CommonSettings,
  type Principal,
  type ServiceContext,
} from '@assay/service-kit';
import { SYSTEM_ENV_KEY, type TestSystemInfo } from './context';
import { componentScript } from './infra';
import { freePorts } from './ports';

export const UNIT_ENV_KEY = 'ASSAY_UNIT_INFRA';

export interface UnitInfra {
  databaseUrl: string;
  redisUrl: string;
}

/** Postgres and Redis for the unit tier (the unit global setup's, else the full test system's). */
export function unitInfra(): UnitInfra {
  const unit = process.env[UNIT_ENV_KEY];
  if (unit) return JSON.parse(unit) as UnitInfra;
  const system = process.env[SYSTEM_ENV_KEY];
  if (system) {
    const s = JSON.parse(system) as TestSystemInfo;
    return { databaseUrl: s.infra.DATABASE_URL, redisUrl: s.infra.REDIS_URL };
  }
  throw new Error('no test infrastructure: run through jest (npm run test:unit or npm test)');
}

/** Starts Postgres and Redis as local processes on free ports in a temporary folder. */
export async function startUnitInfra(): Promise<{ infra: UnitInfra; stop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-unit-'));
  fs.chmodSync(dataDir, 0o755);
  const [pg, redis] = await freePorts(2);
  const env: NodeJS.ProcessEnv = { ...process.env, ASSAY_DATA_DIR: dataDir, PG_PORT: String(pg), REDIS_PORT: String(redis) };
  const stop = async () => {
    await componentScript('redis', 'stop', env).catch(() => undefined);
    await componentScript('postgres', 'stop', env).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await Promise.all([componentScript('postgres', 'start', env), componentScript('redis', 'start', env)]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { infra: { databaseUrl: `postgres://assay:assay@127.0.0.1:${pg}/assay`, redisUrl: `redis://127.0.0.1:${redis}` }, stop };
}

export interface TestSchema {
  schema: string;
  pool: Pool;
  /** Drops the schema and closes the pool. */
  drop(): Promise<void>;
}

/** A new schema named after the test file, with the service's migrations applied, and a pool that sees only it. */
export async function testSchema(migrationsDir: string, label = 'unit'): Promise<TestSchema> {
  const { databaseUrl } = unitInfra();
  const schema = `t_${label
    .replace(/[^a-z0-9]/gi, '_')
    .toLowerCase()
    .slice(0, 40)}_${randomBytes(4).toString('hex')}`;
  const logger = createLogger('test', 'silent');
  await migrate({ databaseUrl, schema, dir: migrationsDir, logger });
  const pool = createPool({ connectionString: databaseUrl, schema, max: 4, applicationName: `unit:${schema}`, logger });
  return {
    schema,
    pool,
    drop: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
      await endPool(pool);
    },
  };
}

/** A ServiceContext for a service's `wire(ctx)` in a handler test (no broker; silent logs; its own metrics). */
export function testContext<C extends CommonSettings>(
  name: string,
  config: C,
  pool: Pool,
  logger = createLogger(name, 'silent'),
): ServiceContext<C> {
  return { name, config, logger, pool, metrics: createMetrics(name), health: new HealthMonitor([], 60_000, logger) };
}

/**
 * A client of `service` whose calls run the given routes in this process, through the same interceptors a
 * running service uses (request id, error mapping, principal): what a handler answers over the network, it
 * answers here.
 */
export function inMemoryClient<S extends DescService>(service: S, routes: (router: ConnectRouter) => void, logger?: Logger): Client<S> {
  const transport = createRouterTransport(routes, {
    router: { interceptors: handlerInterceptors(logger ?? createLogger('test', 'silent')) },
  });
  return createClient(service, transport);
}

/** Call options carrying a caller principal (what the gateway forwards). */
export const as = (p: Principal) => asPrincipal(p);

/** A principal for handler tests: a PAT of a user with `role` in organization `orgId`. */
export function principal(role: Principal['role'] = 'owner', overrides: Partial<Principal> = {}): Principal {
  return {
    tokenId: 'a'.repeat(24),
    tokenType: 'pat',
    userId: 'b'.repeat(24),
    userName: 'Ada Tester',
    userEmail: 'ada@example.test',
    orgId: 'c'.repeat(24),
    role,
    ...overrides,
  };
}
