/**
 * The whole system (every service and the gateway) as real processes on given or free ports, pointed at
 * given infrastructure. Used by `make up` (fixed ports, detached) and by tests (free ports).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import type { InfraEnv } from './infra';
import { freePorts } from './ports';
import { startProcess, tail, waitUntil, type ManagedProcess } from './processes';
import { REPO_ROOT } from './paths';
import {
  ADMIN,
  addressEnv,
  credentialEnv,
  envForProcess,
  GATEWAY,
  newCredentials,
  SERVICES,
  type Credentials,
  type Ports,
} from './topology';

const run = promisify(execFile);

export interface SystemOptions {
  infra: InfraEnv;
  logDir: string;
  /** Default: free ports. */
  ports?: Ports;
  /** One internal credential per process and the admin CLI's (default: new random ones). */
  credentials?: Credentials;
  /** Callers every service accepts on top of its own (tests: `admin`, so they can call any service directly). */
  extraCallers?: string[];
  /** Key that encrypts webhook signing secrets at rest (SECRETS_KEY); default: a random one per system. */
  secretsKey?: string;
  /**
   * Extra environment: `env` goes to every process that reads the variable (settings a process does not read
   * are not given to it), `envFor` to one process as it is.
   */
  env?: Record<string, string>;
  envFor?: Record<string, Record<string, string>>;
  detached?: boolean;
  logLevel?: string;
}

export interface RunningSystem {
  gatewayUrl: string;
  /** The identity service, where the admin CLI's AdminService is. */
  adminUrl: string;
  /** The admin CLI's credential. */
  internalToken: string;
  credentials: Credentials;
  ports: Ports;
  infra: InfraEnv;
  processes: Map<string, ManagedProcess>;
  /** The environment given to a process (for restarting it the same way). */
  envOf(name: string): NodeJS.ProcessEnv;
  /** Stops and starts one process; `env` is added to its environment (and kept for later restarts). */
  restart(name: string, env?: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

export async function allocatePorts(): Promise<Ports> {
  const ports = await freePorts(2 + SERVICES.length * 2);
  const gateway = { port: ports[0]!, metricsPort: ports[1]! };
  const services: Ports['services'] = {};
  SERVICES.forEach((s, i) => {
    services[s.name] = { rpcPort: ports[2 + i * 2]!, httpPort: ports[3 + i * 2]! };
  });
  return { gateway, services };
}

async function ready(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  return res.status === 200;
}

/**
 * startSystem on free ports, with its URLs (deep links, signed artifact URLs) pointing at its own gateway. A port
 * taken meanwhile by another program on this shared machine fails a process's start (EADDRINUSE): then once more on
 * fresh ports.
 */
export async function startSystemOnFreePorts(opts: Omit<SystemOptions, 'ports'>): Promise<RunningSystem> {
  for (let attempt = 1; ; attempt++) {
    const ports = await allocatePorts();
    try {
      return await startSystem({ ...opts, ports, env: { PUBLIC_UI_URL: `http://127.0.0.1:${ports.gateway.port}`, ...opts.env } });
    } catch (err) {
      if (attempt >= 2 || !String((err as Error).message).includes('EADDRINUSE')) throw err;
    }
  }
}

export async function startSystem(opts: SystemOptions): Promise<RunningSystem> {
  const ports = opts.ports ?? (await allocatePorts());
  const credentials = opts.credentials ?? newCredentials();
  const base: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: process.env.NODE_ENV === 'production' ? 'production' : 'development',
    NODE_OPTIONS: '--enable-source-maps',
    LOG_LEVEL: opts.logLevel ?? 'info',
    ...opts.infra,
    ...addressEnv(ports),
    SECRETS_KEY: opts.secretsKey ?? randomBytes(32).toString('hex'),
    // A system of its own keeps its artifacts apart (filesystem storage) unless told otherwise.
    ARTIFACT_DIR: path.join(opts.logDir, 'artifacts'),
    // The web app built elsewhere (`vite build --outDir …`): two changes of the app tested at once do not rebuild
    // web/dist under each other's pages.
    ...(process.env.ASSAY_WEB_ROOT && { WEB_ROOT: path.resolve(process.env.ASSAY_WEB_ROOT) }),
    ...opts.env,
  };
  // Each process gets only what it reads (least privilege: e.g. SECRETS_KEY reaches webhooks alone).
  const envs = new Map<string, NodeJS.ProcessEnv>();
  for (const s of SERVICES) {
    const p = ports.services[s.name]!;
    envs.set(s.name, {
      ...envForProcess(s.name, {
        ...base,
        ...credentialEnv(s.name, credentials, opts.extraCallers),
        RPC_PORT: String(p.rpcPort),
        HTTP_PORT: String(p.httpPort),
      }),
      ...opts.envFor?.[s.name],
    });
  }
  envs.set(GATEWAY.name, {
    ...envForProcess(GATEWAY.name, {
      ...base,
      ...credentialEnv(GATEWAY.name, credentials),
      PORT: String(ports.gateway.port),
      METRICS_PORT: String(ports.gateway.metricsPort),
    }),
    ...opts.envFor?.[GATEWAY.name],
  });
  const dirs = new Map<string, string>([...SERVICES.map((s) => [s.name, s.dir] as const), [GATEWAY.name, GATEWAY.dir]]);

  // Migrations first, one process each, so the servers start against a ready schema (the gateway has none).
  await Promise.all(
    [...dirs]
      .filter(([name]) => name !== GATEWAY.name)
      .map(async ([name, dir]) => {
        try {
          await run(process.execPath, ['dist/main.js', 'migrate'], { cwd: path.join(REPO_ROOT, dir), env: envs.get(name) });
        } catch (err) {
          const e = err as { stderr?: string; stdout?: string; message: string };
          throw new Error(`migrations of ${name} failed: ${e.message}\n${e.stderr ?? ''}${e.stdout ?? ''}`);
        }
      }),
  );

  const processes = new Map<string, ManagedProcess>();
  const launch = (name: string) => {
    const p = startProcess({ name, dir: dirs.get(name)!, env: envs.get(name)!, logDir: opts.logDir, detached: opts.detached });
    processes.set(name, p);
    return p;
  };
  const waitReady = async (name: string) => {
    const p = processes.get(name)!;
    const url =
      name === GATEWAY.name
        ? `http://127.0.0.1:${ports.gateway.port}/healthz`
        : `http://127.0.0.1:${ports.services[name]!.httpPort}/readyz`;
    const exited = () => p.child.exitCode !== null || p.child.signalCode !== null;
    const describe = () =>
      `${name} did not become ready (exit ${p.child.exitCode ?? p.child.signalCode}); log ${p.logFile}:\n${tail(p.logFile)}`;
    // An exited process ends the wait at once (a throw in the check would only count as "not yet").
    await waitUntil(async () => exited() || (await ready(url)), 60000, describe);
    if (exited()) throw new Error(describe());
  };

  const stop = async () => {
    const order = [GATEWAY.name, ...SERVICES.map((s) => s.name).reverse()];
    for (const name of order) await processes.get(name)?.stop();
  };

  try {
    for (const s of SERVICES) launch(s.name);
    await Promise.all(SERVICES.map((s) => waitReady(s.name)));
    launch(GATEWAY.name);
    await waitReady(GATEWAY.name);
    const gatewayUrl = `http://127.0.0.1:${ports.gateway.port}`;
    await waitUntil(
      () => ready(`${gatewayUrl}/readyz`),
      60000,
      () => `gateway not ready; log:\n${tail(processes.get(GATEWAY.name)!.logFile)}`,
    );
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    gatewayUrl: `http://127.0.0.1:${ports.gateway.port}`,
    adminUrl: `http://127.0.0.1:${ports.services.identity!.rpcPort}`,
    internalToken: credentials[ADMIN]!,
    credentials,
    ports,
    infra: opts.infra,
    processes,
    envOf: (name) => envs.get(name)!,
    async restart(name, env) {
      await processes.get(name)?.stop();
      if (env) envs.set(name, { ...envs.get(name)!, ...env });
      launch(name);
      await waitReady(name);
    },
    stop,
  };
}
