/**
 * The publishable packages as a user gets them: `npm pack` @assay/client, @assay/webhook-verify and @assay/mcp
 * (built by `npm run build`), install the tarballs into an empty project (openapi-fetch, the MCP SDK and zod come
 * from the npm registry or its cache), then use them there with require() and with import() — a real call of the
 * client against a local server, with a retry and an idempotency key —, type-check a TypeScript user of both
 * module kinds, and start the MCP server the way an assistant does (`npx @assay/mcp`, stdio) to list its tools
 * and call one against the local server.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS } from '@assay/mcp';
import { npm, pack, ROOT, run, typeCheck, type PackEntry } from './support';

jest.setTimeout(300_000);
const PACKAGES = {
  client: path.join(ROOT, 'packages', 'client'),
  verify: path.join(ROOT, 'packages', 'webhook-verify'),
  mcp: path.join(ROOT, 'packages', 'mcp'),
};

/** What the consumer scripts call: test runs (a 503 first, then two pages), a suite create. */
function startApi() {
  const seen: { method: string; url: string; authorization?: string; idempotencyKey?: string }[] = [];
  let runsCalls = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push({
        method: req.method ?? '',
        url: url.pathname + url.search,
        authorization: req.headers.authorization,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      });
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/api/v1/public/p1/test-runs') {
        if (runsCalls++ % 3 === 0)
          return send(503, { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'x' } }, { 'retry-after': '0' });
        const page = Number(url.searchParams.get('page') ?? 1);
        const data = page === 1 ? [{ id: 'r1' }, { id: 'r2' }] : [{ id: 'r3' }];
        return send(200, {
          success: true,
          data,
          pagination: { page, limit: 2, total: 3, hasNext: page === 1, hasPrev: page > 1, hasMore: page === 1 },
        });
      }
      if (url.pathname === '/api/v1/public/p1/manual-test-suites' && req.method === 'POST') {
        if (seen.filter((s) => s.method === 'POST').length === 1)
          return send(429, { success: false, error: { code: 'RATE_LIMIT_EXCEEDED', message: 'x' } }, { 'retry-after': '0' });
        return send(201, { success: true, data: { _id: 's1', name: 'Checkout' } });
      }
      send(404, { success: false, error: { code: 'NOT_FOUND', message: 'not found' } });
    });
  });
  return { server, seen };
}

/** The same script for both module kinds: `load` is how it gets the two packages. */
const script = (load: string, resolve: string) => `${load}
const main = async () => {
  const assay = createAssayClient({ baseUrl: process.env.API_URL, token: 'svc_pat_pack' });
  const first = await assay.GET('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId: 'p1' } } });
  const ids = [];
  for await (const run of assay.paginate('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId: 'p1' } } })) ids.push(run.id);
  const created = await assay.POST('/api/v1/public/{projectId}/manual-test-suites', { params: { path: { projectId: 'p1' } }, body: { name: 'Checkout' } });
  const missing = await assay.GET('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId: 'nope' } } });
  const header = signatureHeader('whsec_pack', 1700000000, '{"a":1}');
  const verified = verifySignature('{"a":1}', header, 'whsec_pack', { now: 1700000000 });
  const refused = isValidSignature('{"a":2}', header, 'whsec_pack', { now: 1700000000 });
  console.log(JSON.stringify({
    resolved: ${resolve},
    first: [first.response.status, first.data && first.data.data.length],
    ids,
    created: [created.response.status, created.data && created.data.data.name],
    missing: [missing.response.status, missing.error && missing.error.error.code],
    verified, refused, apiError: typeof AssayApiError,
  }));
};
main().catch((err) => { console.error(err); process.exit(1); });
`;

const TYPES = `import { createAssayClient, type Schemas, type AssayClient } from '@assay/client';
import { verifySignature, type VerifyFailure } from '@assay/webhook-verify';
const assay: AssayClient = createAssayClient({ baseUrl: 'http://localhost', maxRetries: 2 });
export async function firstRunId(): Promise<string | undefined> {
  const { data } = await assay.GET('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId: 'p' } } });
  return data?.data[0]?.id;
}
export async function names(): Promise<string[]> {
  const out: string[] = [];
  for await (const suite of assay.paginate('/api/v1/public/{projectId}/manual-test-suites', { params: { path: { projectId: 'p' } } })) out.push(suite.name);
  return out;
}
// @ts-expect-error the path is not in the API
void assay.GET('/api/v1/public/{projectId}/no-such-list', { params: { path: { projectId: 'p' } } });
// @ts-expect-error projectId is required
void assay.GET('/api/v1/public/{projectId}/test-runs', {});
export const code: Schemas['ErrorEnvelope']['success'] = false;
export const when: number = verifySignature('', 't=1,v1=00', 'whsec_x');
export const reason: VerifyFailure = 'mismatch';
`;

describe('npm pack of @assay/client, @assay/webhook-verify and @assay/mcp', () => {
  let dir: string;
  let api: ReturnType<typeof startApi>;
  let apiUrl: string;
  const entries: Record<string, PackEntry> = {};

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-pack-'));
    const tarballs = path.join(dir, 'tarballs');
    const project = path.join(dir, 'project');
    fs.mkdirSync(tarballs);
    fs.mkdirSync(project);
    entries.client = await pack(PACKAGES.client, tarballs);
    entries.verify = await pack(PACKAGES.verify, tarballs);
    entries.mcp = await pack(PACKAGES.mcp, tarballs);
    await npm(project, ['init', '-y', '--loglevel=error']);
    await npm(project, [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      path.join(tarballs, entries.client.filename),
      path.join(tarballs, entries.verify.filename),
      path.join(tarballs, entries.mcp.filename),
    ]);
    api = startApi();
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => api?.server.close(resolve));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  const project = () => path.join(dir, 'project');

  it('packs the built ESM and CommonJS files, their types, README and LICENSE, and nothing of the sources', () => {
    for (const entry of Object.values(entries)) {
      const files = entry.files.map((f) => f.path);
      expect(files).toEqual(
        expect.arrayContaining([
          'package.json',
          'README.md',
          'LICENSE',
          'dist/cjs/index.js',
          'dist/cjs/index.d.ts',
          'dist/cjs/package.json',
          'dist/esm/index.js',
          'dist/esm/index.d.ts',
          'dist/esm/package.json',
        ]),
      );
      expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/') || f.endsWith('.tsbuildinfo'))).toEqual([]);
    }
    expect(entries.client!.files.map((f) => f.path)).toEqual(expect.arrayContaining(['dist/esm/schema.d.ts', 'openapi.json']));
    expect(entries.mcp!.files.map((f) => f.path)).toEqual(expect.arrayContaining(['dist/cjs/bin.js', 'dist/esm/tools.js']));
  });

  it('declares its runtime dependencies from the registry and nothing of the workspace', () => {
    const installed = (name: string) => JSON.parse(fs.readFileSync(path.join(project(), 'node_modules', name, 'package.json'), 'utf8'));
    const client = installed('@assay/client');
    expect(client.dependencies).toEqual({ 'openapi-fetch': expect.any(String) });
    expect(client.private).toBeUndefined();
    expect(client.license).toBe('MIT');
    const verify = installed('@assay/webhook-verify');
    expect(verify.dependencies).toBeUndefined();
    expect(verify.license).toBe('MIT');
    expect(fs.existsSync(path.join(project(), 'node_modules', 'openapi-fetch', 'package.json'))).toBe(true);
    const mcp = installed('@assay/mcp');
    expect(mcp.dependencies).toEqual({
      '@assay/client': '0.1.0',
      '@modelcontextprotocol/sdk': expect.any(String),
      zod: expect.any(String),
    });
    expect(mcp.bin).toEqual({ 'assay-mcp': 'dist/cjs/bin.js' });
    expect(mcp.license).toBe('MIT');
    // Its @assay/client is the tarball's, not something of the same name from a registry.
    expect(installed('@assay/client').version).toBe(client.version);
    expect(fs.existsSync(path.join(project(), 'node_modules', '@assay', 'mcp', 'node_modules'))).toBe(false);
    // Nothing in the built files reaches for another @assay package.
    for (const name of ['@assay/client', '@assay/webhook-verify']) {
      const root = path.join(project(), 'node_modules', name, 'dist');
      for (const file of fs.readdirSync(root, { recursive: true }) as string[]) {
        if (!file.endsWith('.js') && !file.endsWith('.ts')) continue;
        expect(fs.readFileSync(path.join(root, file), 'utf8')).not.toMatch(/['"]@assay\//);
      }
    }
  });

  it.each([
    [
      'require()',
      'use.cjs',
      `const { createAssayClient, AssayApiError } = require('@assay/client');
const { signatureHeader, verifySignature, isValidSignature } = require('@assay/webhook-verify');`,
      `[require.resolve('@assay/client'), require.resolve('@assay/webhook-verify')]`,
      'cjs',
    ],
    [
      'import',
      'use.mjs',
      `import { createAssayClient, AssayApiError } from '@assay/client';
import { signatureHeader, verifySignature, isValidSignature } from '@assay/webhook-verify';`,
      `[import.meta.resolve('@assay/client'), import.meta.resolve('@assay/webhook-verify')]`,
      'esm',
    ],
    [
      'import() from CommonJS',
      'dynamic.cjs',
      `let createAssayClient, AssayApiError, signatureHeader, verifySignature, isValidSignature;
const load = Promise.all([import('@assay/client'), import('@assay/webhook-verify')]).then(([c, v]) => {
  ({ createAssayClient, AssayApiError } = c);
  ({ signatureHeader, verifySignature, isValidSignature } = v);
});`,
      `'dynamic'`,
      'esm',
    ],
  ])(
    'works with %s in a plain Node project: a real call with a retry, pages, a create, a 404',
    async (_kind, file, load, resolve, flavour) => {
      const source =
        file === 'dynamic.cjs'
          ? script(load, resolve).replace('const main = async () => {', 'const main = async () => {\n  await load;')
          : script(load, resolve);
      fs.writeFileSync(path.join(project(), file), source);
      api.seen.length = 0;
      const { stdout } = await run(process.execPath, [file], { cwd: project(), env: { ...process.env, API_URL: apiUrl } });
      const out = JSON.parse(stdout);
      expect(out).toMatchObject({
        first: [200, 2],
        ids: ['r1', 'r2', 'r3'],
        created: [201, 'Checkout'],
        missing: [404, 'NOT_FOUND'],
        verified: 1700000000,
        refused: false,
        apiError: 'function',
      });
      if (Array.isArray(out.resolved))
        for (const r of out.resolved as string[]) expect(r).toContain(flavour === 'cjs' ? '/dist/cjs/index.js' : '/dist/esm/index.js');
      // The retried create sent its idempotency key twice, the same; the 404 was asked once.
      const posts = api.seen.filter((s) => s.method === 'POST');
      expect(posts).toHaveLength(2);
      expect(posts[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(posts[1]!.idempotencyKey).toBe(posts[0]!.idempotencyKey);
      expect(api.seen.filter((s) => s.url.includes('/nope/'))).toHaveLength(1);
      expect(new Set(api.seen.map((s) => s.authorization))).toEqual(new Set(['Bearer svc_pat_pack']));
    },
  );

  it('gives TypeScript users the types, from ESM and from CommonJS', async () => {
    await expect(typeCheck(project(), TYPES)).resolves.toBeDefined();
    // And a mistake is caught (the types are real, not any).
    const failed = await typeCheck(
      project(),
      `${TYPES}export const wrong: number = (await assay.GET('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId: 'p' } } })).data!.data[0]!.id;\n`,
    ).catch((e: { stdout: string }) => e);
    expect((failed as { stdout: string }).stdout).toMatch(/types\.mts.*TS2322/);
  });

  it('starts the MCP server as an assistant does (npx @assay/mcp over stdio): lists its tools and calls one', async () => {
    const help = await run('npx', ['--no-install', '@assay/mcp', '--help'], { cwd: project() });
    expect(help.stdout).toContain('ASSAY_TOKEN');
    const mcp = new Client({ name: 'pack', version: '1' });
    await mcp.connect(
      new StdioClientTransport({
        command: 'npx',
        args: ['--no-install', '@assay/mcp'],
        cwd: project(),
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          ASSAY_URL: apiUrl,
          ASSAY_TOKEN: 'svc_pat_pack',
          ASSAY_PROJECT_ID: 'p1',
        },
        stderr: 'pipe',
      }),
    );
    try {
      expect(mcp.getServerVersion()).toEqual(
        expect.objectContaining({ name: 'assay', version: entries.mcp!.filename.match(/-(\d+\.\d+\.\d+)\.tgz$/)![1] }),
      );
      const { tools } = await mcp.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(Object.keys(TOOLS).sort());
      api.seen.length = 0;
      const res = (await mcp.callTool({ name: 'list_runs', arguments: { limit: 10 } })) as CallToolResult;
      // (Every third test-runs answer of the fake API is a 503, which the server's @assay/client retries.)
      expect(res.isError).toBeFalsy();
      const body = JSON.parse((res.content[0] as { text: string }).text);
      expect(body.data.map((r: { id: string }) => r.id)).toEqual(['r1', 'r2']);
      expect(body.hint).toBe('More results: call again with page=2.');
      expect(api.seen.length).toBeGreaterThan(0);
      expect(new Set(api.seen.map((s) => s.url))).toEqual(new Set(['/api/v1/public/p1/test-runs?limit=10']));
      expect(new Set(api.seen.map((s) => s.authorization))).toEqual(new Set(['Bearer svc_pat_pack']));
    } finally {
      await mcp.close();
    }
  });
});
