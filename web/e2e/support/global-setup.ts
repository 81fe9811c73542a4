/**
 * Starts the infrastructure and the whole system once for the browser tests (the same way jest's global setup
 * does); the returned function stops it. Test workers read the addresses from ASSAY_TEST_SYSTEM.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestSystem } from '@assay/testkit';

export default async function globalSetup(): Promise<() => Promise<void>> {
  // `ASSAY_WEB_ROOT`: the app built elsewhere, which every gateway the testkit starts serves (system.ts).
  const root = process.env.ASSAY_WEB_ROOT || path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');
  if (!fs.existsSync(path.join(root, 'index.html'))) throw new Error(`${root} is not built: run \`npm run build\` first`);
  // Webhooks to a receiver on loopback (runs.spec.ts opens a run from a webhook payload's `url`).
  const started = await startTestSystem({ name: 'browser', envFor: { webhooks: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } } });
  return () => started.stop();
}
