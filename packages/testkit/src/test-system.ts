/**
 * The system the test runners share: the infrastructure and every process on free ports, started once per run
 * by jest's global setup and by the browser tests' (web/e2e). Deep links (`url` fields, invitation links) point
 * at this gateway, so a test can open them. Test files read the addresses from ASSAY_TEST_SYSTEM (context.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startInfra, type Infra } from './infra';
import { startSystemOnFreePorts, type RunningSystem } from './system';
import { ADMIN } from './topology';
import { SHARED_GATEWAY_RATE_LIMITS_ENV, SYSTEM_ENV_KEY, type TestSystemInfo } from './context';

export interface StartedTestSystem {
  info: TestSystemInfo;
  infra: Infra;
  system: RunningSystem;
  stop(): Promise<void>;
}

export interface TestSystemOptions {
  name: string;
  /**
   * Extra environment per process (e.g. `{ webhooks: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } }` for a test that
   * receives webhooks on loopback), merged over the defaults below.
   */
  envFor?: Record<string, Record<string, string>>;
}

export async function startTestSystem(opts: TestSystemOptions): Promise<StartedTestSystem> {
  const started = Date.now();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), `assay-${opts.name}-logs-`));
  const infra = await startInfra();
  let system: RunningSystem;
  try {
    system = await startSystemOnFreePorts({
      infra: infra.env,
      logDir,
      logLevel: process.env.LOG_LEVEL ?? 'info',
      // Raised rate limits: see SHARED_GATEWAY_RATE_LIMITS.
      envFor: mergeEnvFor({ gateway: { RATE_LIMITS: SHARED_GATEWAY_RATE_LIMITS_ENV } }, opts.envFor),
      // Tests call any service directly with the admin credential (inspection, their own fixtures).
      extraCallers: [ADMIN],
    });
  } catch (err) {
    await infra.stop();
    throw err;
  }
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
    `\n[assay-${opts.name}] ${infra.kind} infrastructure and system ready in ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${logDir}\n`,
  );
  return {
    info,
    infra,
    system,
    async stop() {
      await system.stop();
      await infra.stop();
    },
  };
}

function mergeEnvFor(
  defaults: Record<string, Record<string, string>>,
  extra: Record<string, Record<string, string>> = {},
): Record<string, Record<string, string>> {
  const out = { ...defaults };
  for (const [name, env] of Object.entries(extra)) out[name] = { ...out[name], ...env };
  return out;
}
