/**
 * Starts the infrastructure and the whole system once for the browser tests (the same way jest's global setup
 * does); the returned function stops it. Test workers read the addresses from ASSAY_TEST_SYSTEM.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestSystem } from '@assay/testkit';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const index = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'index.html');
  if (!fs.existsSync(index)) throw new Error('web/dist is not built: run `npm run build` first');
  // Webhooks to a receiver on loopback (runs.spec.ts opens a run from a webhook payload's `url`).
  const started = await startTestSystem({ name: 'browser', envFor: { webhooks: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } } });
  return () => started.stop();
}
