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

/**
 * Runs the Playwright CLI on a fixture project with `reporters` and extra environment. Exit code 1 (some tests
 * failed) is the point of the fixtures; anything else, or no JSON report, is a broken fixture.
 */
function runPlaywright(fixture: string, reporters: string, jsonPath: string, extraEnv: NodeJS.ProcessEnv): void {
  // Playwright refuses to run inside a jest worker: hide the worker's marker from it.
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('JEST'))),
    JEST_WORKER_ID: '',
    PLAYWRIGHT_JSON_OUTPUT_NAME: jsonPath,
    CI: '1',
    FORCE_COLOR: '0',
    ...extraEnv,
  };
  try {
    execFileSync(process.execPath, [CLI, 'test', '--config', path.join(fixture, 'playwright.config.ts'), `--reporter=${reporters}`], {
      cwd: fixture,
      env,
      stdio: 'pipe',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    if ((err as { status?: number }).status !== 1 || !fs.existsSync(jsonPath)) throw err;
  }
}

let cached: Promise<RealReport> | undefined;

export function realPlaywrightReport(): Promise<RealReport> {
  cached ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-pw-'));
    const jsonPath = path.join(dir, 'report.json');
    const junitPath = path.join(dir, 'junit.xml');
    runPlaywright(PLAYWRIGHT_FIXTURE, 'json,junit', jsonPath, { PLAYWRIGHT_JUNIT_OUTPUT_NAME: junitPath });
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

export const BROWSER_FIXTURE = path.join(__dirname, '..', 'fixtures', 'playwright-browser');

export interface BrowserRun {
  dir: string;
  jsonPath: string;
  /** Playwright's HTML report of the run (a folder with index.html). */
  htmlDir: string;
  json: any;
  /** Every attachment with a file, with what an upload names it by (as the runs service reads the report). */
  attachments: { file: string; titlePath: string[]; projectName: string; retry: number; name: string; path: string; contentType: string }[];
}

let browserRun: Promise<BrowserRun> | undefined;

/**
 * A real `@playwright/test` run in Debian's Chromium with `screenshot`, `video` and `trace` on (once per jest
 * worker): two tests, one failing; JSON and HTML reports.
 */
export function realBrowserRun(): Promise<BrowserRun> {
  browserRun ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-pwb-'));
    const jsonPath = path.join(dir, 'report.json');
    runPlaywright(BROWSER_FIXTURE, 'json,html', jsonPath, {
      PLAYWRIGHT_BROWSERS_PATH: path.join(__dirname, '..', '..', '..', '.cache', 'ms-playwright'),
      ASSAY_PW_OUTPUT_DIR: path.join(dir, 'test-results'),
      PLAYWRIGHT_HTML_OUTPUT_DIR: path.join(dir, 'playwright-report'),
      PLAYWRIGHT_HTML_OPEN: 'never',
    });
    const json = JSON.parse(fs.readFileSync(jsonPath, 'utf8'));
    const attachments: BrowserRun['attachments'] = [];
    const walk = (suite: any, titles: string[]) => {
      for (const spec of suite.specs ?? [])
        for (const t of spec.tests)
          for (const r of t.results)
            for (const a of r.attachments)
              if (a.path)
                attachments.push({
                  file: spec.file,
                  titlePath: [...titles, spec.title],
                  projectName: t.projectName,
                  retry: r.retry,
                  name: a.name,
                  path: a.path,
                  contentType: a.contentType,
                });
      for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
    };
    // A top-level suite is the file: its title is not part of the title path.
    for (const s of json.suites) walk(s, []);
    return { dir, jsonPath, htmlDir: path.join(dir, 'playwright-report'), json, attachments };
  })();
  return browserRun;
}
