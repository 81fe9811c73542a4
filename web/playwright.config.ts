/**
 * Browser tests (`npm run test:browser -w web`, part of `make test`): Debian's Chromium driven by Playwright
 * (Playwright's own browser download is not reachable; CHROMIUM_PATH overrides /usr/bin/chromium) against the
 * whole system started once by the global setup, the gateway serving the built app (web/dist).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

// Video recording runs Debian's ffmpeg, linked where Playwright looks for its own (scripts/browser/install-chromium.sh).
process.env.PLAYWRIGHT_BROWSERS_PATH ??= fileURLToPath(new URL('../.cache/ms-playwright', import.meta.url));

export default defineConfig({
  testDir: './e2e',
  globalSetup: './e2e/support/global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: process.env.PLAYWRIGHT_WORKERS ? Number(process.env.PLAYWRIGHT_WORKERS) : 2,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      chromiumSandbox: false,
      // No network beyond the test system here: without these Chromium keeps dialling Google's hosts.
      args: ['--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
});
