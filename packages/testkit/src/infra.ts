/**
 * Postgres, Redis and a real Kafka broker for tests. With a reachable Docker engine they run in containers
 * (testcontainers); otherwise as local processes started by scripts/infra on free ports in a private data
 * dir, so several test runs (or a running `make up`) never collide. Variables already set in the
 * environment (DATABASE_URL, REDIS_URL, KAFKA_BROKERS) are used as they are.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { INFRA_SCRIPT } from './paths';
import { freePorts } from './ports';

const run = promisify(execFile);

export interface InfraEnv {
  DATABASE_URL: string;
  REDIS_URL: string;
  KAFKA_BROKERS: string;
}

export interface Infra {
  env: InfraEnv;
  kind: 'containers' | 'local-processes';
  /** Only for local processes: the scripts/infra environment (data dir, ports) to stop/start a part. */
  scriptEnv?: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

async function dockerReachable(): Promise<boolean> {
  if (process.env.ASSAY_TEST_INFRA === 'local') return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function startContainers(): Promise<Infra> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const [pg, redis, kafka] = await Promise.all([
    new GenericContainer('postgres:15-alpine')
      .withEnvironment({ POSTGRES_USER: 'assay', POSTGRES_PASSWORD: 'assay', POSTGRES_DB: 'assay' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start(),
    new GenericContainer('redis:7-alpine').withExposedPorts(6379).start(),
    new KafkaContainer('confluentinc/cp-kafka:7.7.1').withKraft().start(),
  ]);
  return {
    kind: 'containers',
    env: {
      DATABASE_URL: `postgres://assay:assay@${pg.getHost()}:${pg.getMappedPort(5432)}/assay`,
      REDIS_URL: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
      KAFKA_BROKERS: `${kafka.getHost()}:${kafka.getMappedPort(9093)}`,
    },
    stop: async () => {
      await Promise.all([pg.stop(), redis.stop(), kafka.stop()]);
    },
  };
}

/** Runs scripts/infra/infra.sh with the given environment. */
export async function infraScript(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  await run('bash', [INFRA_SCRIPT, ...args], { env, maxBuffer: 16 * 1024 * 1024 });
}

/** Runs one component script (postgres.sh, redis.sh, kafka.sh) with `start` or `stop`. */
export async function componentScript(
  component: 'postgres' | 'redis' | 'kafka',
  action: 'start' | 'stop',
  env: NodeJS.ProcessEnv,
): Promise<void> {
  await run('bash', [path.join(path.dirname(INFRA_SCRIPT), `${component}.sh`), action], { env, maxBuffer: 16 * 1024 * 1024 });
}

async function startLocalProcesses(): Promise<Infra> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-infra-'));
  // Postgres (running as the postgres user) must be able to reach its data dir.
  fs.chmodSync(dataDir, 0o755);
  const [pg, redis, kafka, controller] = await freePorts(4);
  const scriptEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ASSAY_DATA_DIR: dataDir,
    PG_PORT: String(pg),
    REDIS_PORT: String(redis),
    KAFKA_PORT: String(kafka),
    KAFKA_CONTROLLER_PORT: String(controller),
  };
  delete scriptEnv.DATABASE_URL;
  delete scriptEnv.REDIS_URL;
  delete scriptEnv.KAFKA_BROKERS;
  try {
    await infraScript(['up'], scriptEnv);
  } catch (err) {
    await infraScript(['down'], scriptEnv).catch(() => undefined);
    const e = err as { stderr?: string; message: string };
    throw new Error(`could not start local infrastructure: ${e.message}\n${e.stderr ?? ''}`);
  }
  return {
    kind: 'local-processes',
    scriptEnv,
    env: {
      DATABASE_URL: `postgres://assay:assay@127.0.0.1:${pg}/assay`,
      REDIS_URL: `redis://127.0.0.1:${redis}`,
      KAFKA_BROKERS: `127.0.0.1:${kafka}`,
    },
    stop: async () => {
      await infraScript(['down'], scriptEnv);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function startInfra(): Promise<Infra> {
  const { DATABASE_URL, REDIS_URL, KAFKA_BROKERS } = process.env;
  if (DATABASE_URL && REDIS_URL && KAFKA_BROKERS) {
    return { kind: 'local-processes', env: { DATABASE_URL, REDIS_URL, KAFKA_BROKERS }, stop: async () => undefined };
  }
  return (await dockerReachable()) ? startContainers() : startLocalProcesses();
}
