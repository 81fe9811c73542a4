/**
 * The processes that make up Assay and how they find each other: the one list `make up` and the test
 * harness start from. A new service lands here (and in the README settings table and the Helm chart).
 */
export interface ServiceProcess {
  /** Short name; also the prefix of its address variables: manual-testing → MANUAL_TESTING_URL. */
  name: string;
  /** Workspace folder, relative to the repo root; started with `node dist/main.js`. */
  dir: string;
  rpcPort: number;
  httpPort: number;
}

export const SERVICES: ServiceProcess[] = [
  { name: 'manual-testing', dir: 'services/manual-testing', rpcPort: 7201, httpPort: 9201 },
  { name: 'runs', dir: 'services/runs', rpcPort: 7202, httpPort: 9202 },
  { name: 'analytics', dir: 'services/analytics', rpcPort: 7203, httpPort: 9203 },
  { name: 'webhooks', dir: 'services/webhooks', rpcPort: 7204, httpPort: 9204 },
  { name: 'reports', dir: 'services/reports', rpcPort: 7205, httpPort: 9205 },
];

export const GATEWAY = { name: 'gateway', dir: 'gateway', port: 8080, adminPort: 7200, metricsPort: 9200 };

export interface Ports {
  gateway: { port: number; adminPort: number; metricsPort: number };
  services: Record<string, { rpcPort: number; httpPort: number }>;
}

export const DEFAULT_PORTS: Ports = {
  gateway: { port: GATEWAY.port, adminPort: GATEWAY.adminPort, metricsPort: GATEWAY.metricsPort },
  services: Object.fromEntries(SERVICES.map((s) => [s.name, { rpcPort: s.rpcPort, httpPort: s.httpPort }])),
};

const envName = (service: string) => service.toUpperCase().replace(/-/g, '_');

/** Address variables every process receives (each reads the ones its settings declare). */
export function addressEnv(ports: Ports): Record<string, string> {
  const env: Record<string, string> = { IDENTITY_URL: `http://127.0.0.1:${ports.gateway.adminPort}` };
  for (const s of SERVICES) {
    const p = ports.services[s.name]!;
    env[`${envName(s.name)}_URL`] = `http://127.0.0.1:${p.rpcPort}`;
    env[`${envName(s.name)}_HTTP_URL`] = `http://127.0.0.1:${p.httpPort}`;
  }
  return env;
}
