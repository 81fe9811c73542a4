/**
 * Real reports for the analytics tests: `@playwright/test` runs the browser-less fixture project
 * (fixtures/analytics) once per variant (a, b, c: different tests fail or are flaky), with the JSON reporter.
 * And an independent model of what analytics should answer, computed from those reports alone.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'analytics');
const CLI = require.resolve('@playwright/test/cli');

export type Variant = 'a' | 'b' | 'c';

const cache = new Map<Variant, any>();

/** The Playwright JSON report of one variant (run once per jest worker). */
export function analyticsReport(variant: Variant): any {
  const hit = cache.get(variant);
  if (hit) return structuredClone(hit);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `assay-pw-analytics-${variant}-`));
  const jsonPath = path.join(dir, 'report.json');
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('JEST'))),
    JEST_WORKER_ID: '',
    PLAYWRIGHT_JSON_OUTPUT_NAME: jsonPath,
    ANALYTICS_VARIANT: variant,
    CI: '1',
    FORCE_COLOR: '0',
  };
  try {
    execFileSync(process.execPath, [CLI, 'test', '--config', path.join(FIXTURE, 'playwright.config.ts'), '--reporter=json'], {
      cwd: FIXTURE,
      env,
      stdio: 'pipe',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    if ((err as { status?: number }).status !== 1 || !fs.existsSync(jsonPath)) throw err;
  }
  const json = JSON.parse(fs.readFileSync(jsonPath, 'utf8'));
  cache.set(variant, json);
  return structuredClone(json);
}

// ---- the independent model ---------------------------------------------------------------------------------

export type Cls = 'passed' | 'failed' | 'flaky' | 'skipped';

export interface ModelResult {
  file: string;
  titlePath: string[];
  title: string;
  tags: string[];
  cls: Cls;
  ms: number;
}

export interface ModelRun {
  id: string;
  day: number;
  at: number;
  branch: string;
  environment: string;
  author: string;
  runTags: string[];
  status: 'passed' | 'failed';
  results: ModelResult[];
}

/** The tests of a Playwright JSON report as analytics should count them (outcome, summed attempt durations). */
export function resultsOf(report: any): ModelResult[] {
  const out: ModelResult[] = [];
  const walk = (suite: any, titles: string[], top: boolean) => {
    const here = top ? [] : [...titles, suite.title];
    for (const spec of suite.specs ?? [])
      for (const t of spec.tests) {
        const cls: Cls = ({ expected: 'passed', unexpected: 'failed', flaky: 'flaky', skipped: 'skipped' } as const)[
          t.status as 'expected' | 'unexpected' | 'flaky' | 'skipped'
        ];
        const titlePath = [...here, spec.title];
        out.push({
          file: spec.file,
          titlePath,
          title: titlePath.join(' › '),
          tags: [...new Set([...(spec.tags ?? []), ...(t.tags ?? [])])].sort(),
          cls,
          ms: t.results.reduce((s: number, r: any) => s + Math.round(r.duration), 0),
        });
      }
    for (const child of suite.suites ?? []) walk(child, here, false);
  };
  for (const s of report.suites) walk(s, [], true);
  return out;
}

/** The sketch's buckets as the analytics README defines them (integers: M = ⌊41L/40⌋, next L = ⌊40M/39⌋ + 1). */
const bounds: number[] = [0, 1];
const values: number[] = [0];
for (;;) {
  const l = bounds[bounds.length - 1]!;
  const m = Math.floor((41 * l) / 40);
  values.push(m);
  const next = Math.floor((40 * m) / 39) + 1;
  if (next >= 2 ** 31) break;
  bounds.push(next);
}
export function sketched(ms: number): number {
  let i = 0;
  while (i + 1 < bounds.length && bounds[i + 1]! <= ms) i++;
  return values[i]!;
}

export const rate = (part: number, ran: number) => (ran > 0 ? Math.round((part / ran) * 10000) / 100 : 0);
const avg = (sum: number, ran: number) => (ran > 0 ? Math.round((sum / ran) * 100) / 100 : 0);

export function counts(rs: { cls: Cls }[]) {
  return {
    executions: rs.length,
    passed: rs.filter((r) => r.cls === 'passed').length,
    failed: rs.filter((r) => r.cls === 'failed').length,
    flaky: rs.filter((r) => r.cls === 'flaky').length,
    skipped: rs.filter((r) => r.cls === 'skipped').length,
  };
}

export function rates(rs: { cls: Cls; ms: number }[]) {
  const c = counts(rs);
  const ran = c.executions - c.skipped;
  const sum = rs.filter((r) => r.cls !== 'skipped').reduce((s, r) => s + r.ms, 0);
  return { passRate: rate(c.passed, ran), failureRate: rate(c.failed, ran), flakyRate: rate(c.flaky, ran), avgDuration: avg(sum, ran) };
}

/** Nearest-rank percentiles, as the sketch reports them, and exact min / max. */
export function percentiles(rs: { cls: Cls; ms: number }[]) {
  const sorted = rs
    .filter((r) => r.cls !== 'skipped')
    .map((r) => r.ms)
    .sort((a, b) => a - b);
  const q = (p: number) => (sorted.length ? sketched(sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1]!) : 0);
  return {
    p50Duration: q(0.5),
    p90Duration: q(0.9),
    p95Duration: q(0.95),
    p99Duration: q(0.99),
    minDuration: sorted[0] ?? 0,
    maxDuration: sorted[sorted.length - 1] ?? 0,
  };
}

export const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
