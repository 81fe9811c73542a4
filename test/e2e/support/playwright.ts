/**
 * Real reports: runs `@playwright/test` on the browser-less fixture project with its JSON and JUnit reporters
 * (once per jest worker) and returns the files. Playwright itself computes every figure the tests compare with.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const PLAYWRIGHT_FIXTURE = path.join(__dirname, '..', 'fixtures', 'playwright');
const CLI = require.resolve('@playwright/test/cli');

export interface RealReport {
  dir: string;
  jsonPath: string;
  junitPath: string;
  json: any;
  junit: string;
}

let cached: Promise<RealReport> | undefined;

export function realPlaywrightReport(): Promise<RealReport> {
  cached ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-pw-'));
    const jsonPath = path.join(dir, 'report.json');
    const junitPath = path.join(dir, 'junit.xml');
    // Playwright refuses to run inside a jest worker: hide the worker's marker from it.
    const env: NodeJS.ProcessEnv = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('JEST'))),
      JEST_WORKER_ID: '',
      PLAYWRIGHT_JSON_OUTPUT_NAME: jsonPath,
      PLAYWRIGHT_JUNIT_OUTPUT_NAME: junitPath,
      CI: '1',
      FORCE_COLOR: '0',
    };
    try {
      execFileSync(
        process.execPath,
        [CLI, 'test', '--config', path.join(PLAYWRIGHT_FIXTURE, 'playwright.config.ts'), '--reporter=json,junit'],
        {
          cwd: PLAYWRIGHT_FIXTURE,
          env,
          stdio: 'pipe',
          maxBuffer: 64 * 1024 * 1024,
        },
      );
    } catch (err) {
      // Exit code 1 = some tests failed, which is the point; anything else is a broken fixture.
      if ((err as { status?: number }).status !== 1 || !fs.existsSync(jsonPath)) throw err;
    }
    return { dir, jsonPath, junitPath, json: JSON.parse(fs.readFileSync(jsonPath, 'utf8')), junit: fs.readFileSync(junitPath, 'utf8') };
  })();
  return cached;
}

/** testStats as CONTRACT §9 reads them, computed from the report's own tests. */
export function statsFromReport(json: any) {
  const tests: any[] = [];
  const walk = (s: any) => {
    for (const spec of s.specs ?? []) tests.push(...spec.tests);
    for (const c of s.suites ?? []) walk(c);
  };
  for (const s of json.suites) walk(s);
  return {
    total: tests.length,
    passed: tests.filter((t) => t.status === 'expected').length,
    failed: tests.filter((t) => t.status === 'unexpected').length,
    skipped: tests.filter((t) => t.status === 'skipped').length,
    flaky: tests.filter((t) => t.status === 'flaky').length,
    timedOut: tests.filter((t) => t.results[t.results.length - 1]?.status === 'timedOut').length,
    totalAttempts: tests.reduce((n, t) => n + t.results.length, 0),
    retriedTests: tests.filter((t) => t.results.length > 1).length,
  };
}
