/** What a test file sees of the system started once per jest run (by the global setup). */
import { Admin } from './fixtures';
import { Api } from './http';
import type { InfraEnv } from './infra';
import type { Credentials, Ports } from './topology';

export interface TestSystemInfo {
  gatewayUrl: string;
  /** The identity service (AdminService). */
  adminUrl: string;
  /** The admin CLI's credential; in the test system every service accepts it. */
  internalToken: string;
  /** Every process's credential (for tests that start their own copy of a process). */
  credentials: Credentials;
  infra: InfraEnv;
  ports: Ports;
  logDir: string;
  /** Environment for scripts/infra when the infrastructure runs as local processes. */
  infraScriptEnv?: Record<string, string>;
}

export const SYSTEM_ENV_KEY = 'ASSAY_TEST_SYSTEM';

/**
 * The shared test gateway's rate limits (RATE_LIMITS): far above the spec's, because every test comes from one
 * address and many share a minute. The limits themselves are tested on private gateways with the defaults.
 */
export const SHARED_GATEWAY_RATE_LIMITS = {
  reads: 1_000_000,
  writes: 1_000_000,
  manualRunCreate: 1_000_000,
  ip: 1_000_000,
  pdf: 1_000_000,
  ingest: 1_000_000,
};
export const SHARED_GATEWAY_RATE_LIMITS_ENV = Object.entries(SHARED_GATEWAY_RATE_LIMITS)
  .map(([k, v]) => `${k}=${v}`)
  .join(',');

export function testSystem(): TestSystemInfo {
  const raw = process.env[SYSTEM_ENV_KEY];
  if (!raw) throw new Error('no test system: run tests through jest with the global setup (npm test)');
  return JSON.parse(raw) as TestSystemInfo;
}

export function testAdmin(): Admin {
  const s = testSystem();
  return new Admin(s.adminUrl, s.internalToken);
}

export function testApi(token?: string): Api {
  return new Api(testSystem().gatewayUrl, token);
}
