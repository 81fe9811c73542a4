/**
 * @assay/playwright as a user gets it: `npm pack` the reporter and @assay/client (built by `npm run build`),
 * install both tarballs into an empty project with @playwright/test (from the npm registry or its cache), and run
 * a real Playwright project there (no browser needed) that reports to a local server which answers 503 to the
 * first start and the first results batch and stalls on another: the run still arrives whole, in order (start,
 * results, the attachment after its result, finish), the skip rule skips its test before it runs, the only
 * failure is quarantined so Playwright exits 0, and the run's URL is printed. And a TypeScript user of both entry
 * points type-checks.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { npm, pack, ROOT, typeCheck, type PackEntry } from './support';

jest.setTimeout(300_000);
const PACKAGES = { client: path.join(ROOT, 'packages', 'client'), reporter: path.join(ROOT, 'packages', 'playwright') };
const PLAYWRIGHT_VERSION = JSON.parse(
  fs.readFileSync(path.join(ROOT, 'node_modules', '@playwright', 'test', 'package.json'), 'utf8'),
).version;

interface Seen {
  method: string;
  path: string;
  idempotencyKey?: string;
  body: Buffer;
}

/**
 * The Assay API as far as the reporter calls it; the first start and the first results batch answer 503, the
 * third batch is slow.
 */
function fakeAssay() {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = Buffer.concat(chunks);
      seen.push({
        method: req.method ?? '',
        path: url.pathname + url.search,
        idempotencyKey: req.headers['idempotency-key'] as string,
        body,
      });
      const count = (p: string) => seen.filter((s) => s.path.startsWith(p)).length;
      const send = (status: number, data: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(
          JSON.stringify(
            status >= 400 ? { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'busy' } } : { success: true, data },
          ),
        );
      };
      const p = url.pathname;
      if (p === '/api/v1/public/token-info') return send(200, { project: { id: 'p1', name: 'Shop' } });
      if (p === '/api/v1/ingest/p1/skip-list')
        return send(200, {
          rules: [{ id: 'r', name: 'Flaky search', titlePattern: 'skipped by a rule$', file: null, tag: null }],
          tests: [],
        });
      if (p === '/api/v1/ingest/p1/runs') {
        if (count(p) === 1) return send(503, null, { 'retry-after': '0' });
        return send(201, { runId: 'r1', counter: 7, status: 'running', url: 'https://assay.example/projects/p1/runs/r1' });
      }
      if (p === '/api/v1/ingest/p1/runs/r1/results') {
        if (count(p) === 1) return send(503, null, { 'retry-after': '0' });
        const items = JSON.parse(body.toString()).results as { file: string; titlePath: string[]; projectName: string }[];
        const quarantined = items
          .filter((i) => i.titlePath.at(-1) === 'known failure')
          .map(({ file, titlePath, projectName }) => ({ file, titlePath, projectName }));
        const answer = () => send(200, { runId: 'r1', accepted: items.length, tests: items.length, newResults: items.length, quarantined });
        // A slow moment: the third batch is answered after 2 s (the tests go on meanwhile).
        if (count(p) === 3) return void setTimeout(answer, 2000);
        return answer();
      }
      if (p === '/api/v1/ingest/p1/runs/r1/artifacts') return send(201, { id: 'a1' });
      if (p === '/api/v1/ingest/p1/runs/r1/finish')
        return send(200, { runId: 'r1', counter: 7, status: 'passed', url: 'https://assay.example/projects/p1/runs/r1' });
      res.writeHead(404).end();
    });
  });
  return { server, seen };
}

const CONFIG = `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: './tests',
  workers: 1,
  outputDir: process.env.OUT_DIR,
  reporter: [['@assay/playwright', { url: process.env.API_URL, token: 'svc_pat_pack', batchSize: 1, flushIntervalMs: 50 }]],
});
`;

const SPEC = `import fs from 'node:fs';
import path from 'node:path';
import { test, expect } from '@assay/playwright/test';

test('passes', () => {
  expect(1 + 1).toBe(2);
});

test('attaches a file', async ({}, testInfo) => {
  const file = path.join(process.env.OUT_DIR, 'note.txt');
  fs.writeFileSync(file, 'bytes of the note');
  await testInfo.attach('note', { path: file, contentType: 'text/plain' });
});

test('is skipped by a rule', () => {
  fs.writeFileSync(path.join(process.env.MARKS, 'ran'), '');
});

test('known failure', () => {
  expect('broken').toBe('fixed');
});
`;

const TYPES = `import AssayReporter, { buildIdFromEnv, type AssayReporterOptions } from '@assay/playwright';
import { test, expect, type AssayWorkerFixtures } from '@assay/playwright/test';
const options: AssayReporterOptions = { url: 'https://assay.example', batchSize: 10, quarantine: true };
export const reporter = new AssayReporter(options);
export const build: string | undefined = buildIdFromEnv({ GITHUB_RUN_ID: '1' });
test('typed', async ({ page, assaySkipList }) => {
  const list: AssayWorkerFixtures['assaySkipList'] = assaySkipList;
  void list;
  await expect(page).toHaveTitle('x');
});
// @ts-expect-error not an option
export const wrong: AssayReporterOptions = { batchSize: 'ten' };
`;

describe('npm pack of @assay/playwright', () => {
  let dir: string;
  let api: ReturnType<typeof fakeAssay>;
  let entry: PackEntry;
  const project = () => path.join(dir, 'project');

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-pack-pw-'));
    const tarballs = path.join(dir, 'tarballs');
    fs.mkdirSync(tarballs);
    fs.mkdirSync(project());
    const client = await pack(PACKAGES.client, tarballs);
    entry = await pack(PACKAGES.reporter, tarballs);
    await npm(project(), ['init', '-y', '--loglevel=error']);
    await npm(project(), [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      `@playwright/test@${PLAYWRIGHT_VERSION}`,
      path.join(tarballs, client.filename),
      path.join(tarballs, entry.filename),
    ]);
    api = fakeAssay();
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => api?.server.close(resolve));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('packs the built ESM and CommonJS files of both entry points, their types, README and LICENSE, nothing else', () => {
    const files = entry.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        ...['cjs', 'esm'].flatMap((k) => [
          `dist/${k}/index.js`,
          `dist/${k}/index.d.ts`,
          `dist/${k}/test.js`,
          `dist/${k}/test.d.ts`,
          `dist/${k}/package.json`,
        ]),
      ]),
    );
    expect(files.filter((f) => f.startsWith('src/') || f.endsWith('.tsbuildinfo'))).toEqual([]);
    const installed = JSON.parse(fs.readFileSync(path.join(project(), 'node_modules', '@assay', 'playwright', 'package.json'), 'utf8'));
    expect(installed.dependencies).toEqual({ '@assay/client': expect.any(String) });
    expect(installed.peerDependencies).toEqual({ '@playwright/test': expect.any(String) });
    expect(installed.license).toBe('MIT');
  });

  it('reports a real Playwright run through 503s: in order, skip and quarantine rules applied, exit 0, the URL printed', async () => {
    fs.writeFileSync(path.join(project(), 'playwright.config.ts'), CONFIG);
    fs.mkdirSync(path.join(project(), 'tests'), { recursive: true });
    fs.writeFileSync(path.join(project(), 'tests', 'shop.spec.ts'), SPEC);
    const marks = path.join(dir, 'marks');
    fs.mkdirSync(marks);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('JEST') && !k.startsWith('ASSAY_')));
    const child = spawn(process.execPath, [path.join(project(), 'node_modules', '@playwright', 'test', 'cli.js'), 'test'], {
      cwd: project(),
      env: {
        ...env,
        JEST_WORKER_ID: '',
        FORCE_COLOR: '0',
        API_URL: `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`,
        OUT_DIR: path.join(dir, 'results'),
        MARKS: marks,
      },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, out }).toEqual({
      code: 0,
      out: expect.stringContaining('[assay] run #7 passed: https://assay.example/projects/p1/runs/r1'),
    });
    expect(out).toContain('[assay] every failing test is quarantined in Assay, so the run passes:\n  shop.spec.ts › known failure');
    expect(out).toContain('[assay] Assay is not answering (HTTP 503); retrying');
    expect(fs.existsSync(path.join(marks, 'ran'))).toBe(false);

    const calls = api.seen.filter((s) => s.path.includes('/ingest/p1/runs'));
    const kinds = calls.map((s) => s.path.replace(/^\/api\/v1\/ingest\/p1\/runs(\/r1)?\/?/, '').split('?')[0] || 'start');
    expect(kinds[0]).toBe('start');
    expect(kinds[1]).toBe('start');
    expect(calls[1]!.idempotencyKey).toBe(calls[0]!.idempotencyKey); // the retry of the same call
    expect(kinds.at(-1)).toBe('finish');
    // Every test arrived once (the 503'd batch was sent again), each attempt with its status.
    const items = calls
      .filter((_, i) => kinds[i] === 'results')
      .slice(1)
      .flatMap((s) => JSON.parse(s.body.toString()).results);
    expect(items.map((i: any) => [i.titlePath.join(' › '), i.status]).sort()).toEqual([
      ['attaches a file', 'passed'],
      ['is skipped by a rule', 'skipped'],
      ['known failure', 'failed'],
      ['passes', 'passed'],
    ]);
    expect(items.every((i: any) => i.file === 'shop.spec.ts' && i.projectName === '')).toBe(true);
    // The attachment after its result, with the file's bytes, named as in the result.
    const upload = calls.findIndex((_, i) => kinds[i] === 'artifacts');
    const resultOfIt = calls.findIndex((s, i) => kinds[i] === 'results' && s.body.toString().includes('attaches a file'));
    expect(upload).toBeGreaterThan(resultOfIt);
    const q = new URL(calls[upload]!.path, 'http://x').searchParams;
    expect(Object.fromEntries(q)).toMatchObject({ file: 'shop.spec.ts', titlePath: 'attaches a file', retry: '0', name: 'note' });
    expect(calls[upload]!.body.toString()).toBe('bytes of the note');
  });

  it('gives TypeScript users the types of both entry points, from ESM and from CommonJS', async () => {
    await expect(typeCheck(project(), TYPES)).resolves.toBeDefined();
  });
});
