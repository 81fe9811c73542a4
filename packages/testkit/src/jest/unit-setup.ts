/** Global setup of the fast tier (jest.unit.config.mjs): Postgres and Redis only, on free ports. */
import { startUnitInfra, UNIT_ENV_KEY } from '../unit';

declare global {
  var __ASSAY_UNIT__: { stop(): Promise<void> } | undefined;
}

export default async function unitSetup(): Promise<void> {
  const started = Date.now();
  const { infra, stop } = await startUnitInfra();
  globalThis.__ASSAY_UNIT__ = { stop };
  process.env[UNIT_ENV_KEY] = JSON.stringify(infra);
  process.stderr.write(`\n[assay-unit] Postgres and Redis ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
