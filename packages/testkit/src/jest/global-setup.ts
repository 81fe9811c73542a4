/**
 * Starts the infrastructure and the whole system once per jest run; workers read its addresses from
 * ASSAY_TEST_SYSTEM. Logs of every process go to a temp folder printed here (kept when a run fails).
 */
import { startTestSystem, type StartedTestSystem } from '../test-system';

declare global {
  var __ASSAY_TEST__: StartedTestSystem | undefined;
}

export default async function globalSetup(): Promise<void> {
  globalThis.__ASSAY_TEST__ = await startTestSystem({ name: 'test' });
}
