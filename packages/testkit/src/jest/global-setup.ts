/**
 * Starts the infrastructure and the whole system once per jest run; workers read its addresses from
 * ASSAY_TEST_SYSTEM. Logs of every process go to a temp folder printed here (kept when a run fails).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startInfra, type Infra } from '../infra';
import { startSystem, type RunningSystem } from '../system';
import { ADMIN } from '../topology';
import { SHARED_GATEWAY_RATE_LIMITS_ENV, SYSTEM_ENV_KEY, type TestSystemInfo } from '../context';

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
      // Raised rate limits: see SHARED_GATEWAY_RATE_LIMITS.
      envFor: { gateway: { RATE_LIMITS: SHARED_GATEWAY_RATE_LIMITS_ENV } },
      // Tests call any service directly with the admin credential (inspection, their own fixtures).
      extraCallers: [ADMIN],
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
    credentials: system.credentials,
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
