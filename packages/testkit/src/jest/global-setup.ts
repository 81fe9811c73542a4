/**
 * Starts the infrastructure and the whole system once per jest run; workers read its addresses from
 * ASSAY_TEST_SYSTEM. Logs of every process go to a temp folder printed here (kept when a run fails).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startInfra, type Infra } from '../infra';
import { startSystem, type RunningSystem } from '../system';
import { SYSTEM_ENV_KEY, type TestSystemInfo } from '../context';

export const TEST_RATE_LIMITS = 'reads=1000000,writes=1000000,manualRunCreate=1000000,ip=1000000,pdf=1000000,ingest=1000000';

declare global {
  var __ASSAY_TEST__: { infra: Infra; system: RunningSystem; logDir: string } | undefined;
}

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-test-logs-'));
  const infra = await startInfra();
  let system: RunningSystem;
  try {
    system = await startSystem({
      infra: infra.env,
      logDir,
      logLevel: process.env.LOG_LEVEL ?? 'info',
      // Every test comes from 127.0.0.1 and many share a minute, so the shared gateway's rate limits are
      // raised far above the spec's; the limits themselves are tested on private gateways with the defaults
      // (startPrivateGateway).
      envFor: { gateway: { RATE_LIMITS: TEST_RATE_LIMITS } },
    });
  } catch (err) {
    await infra.stop();
    throw err;
  }
  globalThis.__ASSAY_TEST__ = { infra, system, logDir };
  const info: TestSystemInfo = {
    gatewayUrl: system.gatewayUrl,
    adminUrl: system.adminUrl,
    internalToken: system.internalToken,
    infra: infra.env,
    ports: system.ports,
    logDir,
    infraScriptEnv: infra.scriptEnv as Record<string, string> | undefined,
  };
  process.env[SYSTEM_ENV_KEY] = JSON.stringify(info);
  process.stderr.write(
    `\n[assay-test] ${infra.kind} infrastructure and system ready in ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${logDir}\n`,
  );
}
