/**
 * The processes that make up Assay and how they find each other: the one list `make up` and the test
 * harness start from. A new service lands here (and in the README settings table and the Helm chart).
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { formatCallers } from '@assay/service-kit';
import { REPO_ROOT } from './paths';

const loadBuilt = createRequire(__filename);

export interface AssayProcess {
  /** Short name; also the prefix of its address variables: manual-testing → MANUAL_TESTING_URL. */
  name: string;
  /** Workspace folder, relative to the repo root; started with `node dist/main.js`. */
  dir: string;
  /** The TypeBox settings object that `dist/config.js` exports: its keys are the variables the process reads. */
  settingsExport: string;
}

export interface ServiceProcess extends AssayProcess {
  rpcPort: number;
  httpPort: number;
  /**
   * Who may call it (INTERNAL_CALLERS): the processes whose calls the chart's network policies let through,
   * and `admin` (the admin CLI's credential) where the service has admin RPCs.
   */
  callers: string[];
}

/** The admin CLI's credential name: the only caller admin RPCs answer. */
export const ADMIN = 'admin';

export const SERVICES: ServiceProcess[] = [
  {
    name: 'identity',
    dir: 'services/identity',
    settingsExport: 'IdentitySettings',
    rpcPort: 7206,
    httpPort: 9206,
    callers: ['gateway', 'manual-testing', 'reports', ADMIN],
  },
  {
    name: 'manual-testing',
    dir: 'services/manual-testing',
    settingsExport: 'ManualTestingSettings',
    rpcPort: 7201,
    httpPort: 9201,
    callers: ['gateway', 'runs'],
  },
  {
    name: 'runs',
    dir: 'services/runs',
    settingsExport: 'RunsSettings',
    rpcPort: 7202,
    httpPort: 9202,
    callers: ['gateway', 'analytics', 'reports', ADMIN],
  },
  {
    name: 'analytics',
    dir: 'services/analytics',
    settingsExport: 'AnalyticsSettings',
    rpcPort: 7203,
    httpPort: 9203,
    callers: ['gateway', 'reports', ADMIN],
  },
  { name: 'webhooks', dir: 'services/webhooks', settingsExport: 'WebhooksSettings', rpcPort: 7204, httpPort: 9204, callers: ['gateway'] },
  { name: 'reports', dir: 'services/reports', settingsExport: 'ReportsSettings', rpcPort: 7205, httpPort: 9205, callers: ['gateway'] },
];

export const GATEWAY = { name: 'gateway', dir: 'gateway', settingsExport: 'GatewaySettings', port: 8080, metricsPort: 9200 };

export const PROCESSES: AssayProcess[] = [...SERVICES, GATEWAY];

/** Read by Node.js or the operating system rather than by a settings schema; every process gets them. */
export const RUNTIME_ENV = [
  'PATH',
  'HOME',
  'TMPDIR',
  'TZ',
  'LANG',
  'NODE_ENV',
  'NODE_OPTIONS',
  'NODE_EXTRA_CA_CERTS',
  'UV_THREADPOOL_SIZE',
];

const settingNamesCache = new Map<string, string[]>();

/** The environment variables a process reads: the keys of its settings schema (from its build). */
export function settingNames(name: string): string[] {
  const cached = settingNamesCache.get(name);
  if (cached) return cached;
  const proc = PROCESSES.find((p) => p.name === name);
  if (!proc) throw new Error(`unknown process ${name}`);
  const file = path.join(REPO_ROOT, proc.dir, 'dist', 'config.js');
  const schema = (loadBuilt(file) as Record<string, { properties?: Record<string, unknown> } | undefined>)[proc.settingsExport];
  if (!schema?.properties) throw new Error(`${file} does not export the settings object ${proc.settingsExport}`);
  const names = Object.keys(schema.properties);
  settingNamesCache.set(name, names);
  return names;
}

/** The part of `env` that process `name` reads (its settings plus the runtime's own variables). */
export function envForProcess(name: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const keep = new Set([...settingNames(name), ...RUNTIME_ENV]);
  return Object.fromEntries(Object.entries(env).filter(([k, v]) => keep.has(k) && v !== undefined));
}

export interface Ports {
  gateway: { port: number; metricsPort: number };
  services: Record<string, { rpcPort: number; httpPort: number }>;
}

export const DEFAULT_PORTS: Ports = {
  gateway: { port: GATEWAY.port, metricsPort: GATEWAY.metricsPort },
  services: Object.fromEntries(SERVICES.map((s) => [s.name, { rpcPort: s.rpcPort, httpPort: s.httpPort }])),
};

const envName = (service: string) => service.toUpperCase().replace(/-/g, '_');

/** Address variables every process receives (each reads the ones its settings declare). */
export function addressEnv(ports: Ports): Record<string, string> {
  const env: Record<string, string> = {};
  for (const s of SERVICES) {
    const p = ports.services[s.name]!;
    env[`${envName(s.name)}_URL`] = `http://127.0.0.1:${p.rpcPort}`;
    env[`${envName(s.name)}_HTTP_URL`] = `http://127.0.0.1:${p.httpPort}`;
  }
  return env;
}

/** One internal credential per process and one for the admin CLI (name → secret, 64 hex characters). */
export type Credentials = Record<string, string>;

export function newCredentials(): Credentials {
  return Object.fromEntries([...PROCESSES.map((p) => p.name), ADMIN].map((name) => [name, randomBytes(32).toString('hex')]));
}

/**
 * INTERNAL_AUTH_TOKEN (its own credential) and, for a service, INTERNAL_CALLERS (its callers' hashes) of one
 * process. `extraCallers` are accepted by every service on top of its own callers (the test harness lets the
 * admin credential call every service, so tests can inspect any of them directly).
 */
export function credentialEnv(name: string, credentials: Credentials, extraCallers: string[] = []): Record<string, string> {
  const env: Record<string, string> = { INTERNAL_AUTH_TOKEN: credentials[name]! };
  const service = SERVICES.find((s) => s.name === name);
  if (service) {
    const callers = [...new Set([...service.callers, ...extraCallers])];
    env.INTERNAL_CALLERS = formatCallers(Object.fromEntries(callers.map((c) => [c, credentials[c]!])));
  }
  return env;
}
