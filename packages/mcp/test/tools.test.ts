/**
 * The tool layer without a system: the MCP SDK's client over an in-memory transport, the tools over a client whose
 * fetch is a fake API. What the end-to-end tests cannot reach cheaply: the size bound of results (a page cut with
 * the hint to ask less, a long text cut and marked), the error mapping, the project resolution and the requests
 * the tools send.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createAssayClient } from '@assay/client';
import { bound, createAssayMcpServer, TOOLS } from '../src/index';

type Handler = (url: URL, request: Request) => Response | Promise<Response>;
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function connect(handler: Handler, opts: { defaultProjectId?: string; maxResultChars?: number } = {}) {
  const sent: Request[] = [];
  const client = createAssayClient({
    baseUrl: 'http://api.test',
    token: 'svc_pat_unit',
    maxRetries: 0,
    fetch: async (request) => {
      sent.push(request.clone());
      return handler(new URL(request.url), request);
    },
  });
  const server = createAssayMcpServer({ client, ...opts });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const mcp = new Client({ name: 'unit', version: '1' });
  await mcp.connect(b);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const res = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
    const text = res.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    return { isError: res.isError === true, text };
  };
  return { mcp, call, sent, close: () => mcp.close() };
}

const runs = (n: number, pad: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `run${i + 1}`, status: 'failed', note: 'x'.repeat(pad) }));

describe('result size bound', () => {
  it('keeps the first items of a page that does not fit, and says to ask a smaller page', async () => {
    const c = await connect(
      () =>
        json(200, {
          success: true,
          data: runs(50, 200),
          pagination: { page: 1, limit: 50, total: 120, hasNext: true, hasPrev: false, hasMore: true },
        }),
      { defaultProjectId: 'p1', maxResultChars: 3000 },
    );
    const res = await c.call('list_runs', { limit: 50 });
    expect(res.text.length).toBeLessThanOrEqual(3000);
    const body = JSON.parse(res.text);
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data.length).toBeLessThan(50);
    expect(body.data[0].id).toBe('run1');
    expect(body.truncated).toMatchObject({ itemsShown: body.data.length, itemsOnPage: 50, hint: expect.stringContaining('smaller limit') });
    expect(body.pagination).toMatchObject({ total: 120, hasNext: true });
    await c.close();
  });

  it('adds the next-page hint to a page that fits', async () => {
    const c = await connect(
      () => json(200, { success: true, data: runs(2, 0), pagination: { page: 3, limit: 10, total: 40, hasNext: true, hasPrev: true } }),
      { defaultProjectId: 'p1' },
    );
    expect(JSON.parse((await c.call('list_runs', { page: 3 })).text).hint).toBe('More results: call again with page=4.');
    await c.close();
  });

  it('cuts any other answer and marks the cut; the markdown bundle is cut to the bound too', () => {
    const text = bound({ success: true, data: { blob: 'y'.repeat(5000) } }, 1000);
    expect(text.length).toBeLessThanOrEqual(1000);
    expect(text).toMatch(/\[truncated: the answer has \d+ characters/);
    expect(bound({ a: 1 }, 1000, 'next')).toBe('{"a":1,"hint":"next"}');
  });

  it('asks the debug bundle as markdown within maxLength', async () => {
    const c = await connect(
      (url) => new Response(`# Bundle\n${url.search}`, { status: 200, headers: { 'content-type': 'text/markdown' } }),
      {
        defaultProjectId: 'p1',
        maxResultChars: 1000,
      },
    );
    const res = await c.call('get_debug_bundle', { resultId: 'c1' });
    expect(res.text).toBe('# Bundle\n?caseId=c1&format=md&maxLength=20000');
    await c.close();
  });
});

describe('errors and projects', () => {
  it("turns the API's error envelope into a tool error with its code, status and details; never retries a 4xx", async () => {
    const c = await connect(
      () => json(403, { success: false, error: { code: 'FORBIDDEN', message: 'Writes need the owner, admin or member role' } }),
      { defaultProjectId: 'p1' },
    );
    const res = await c.call('create_manual_suite', { name: 'x' });
    expect(res.isError).toBe(true);
    expect(JSON.parse(res.text)).toEqual({
      error: { code: 'FORBIDDEN', status: 403, message: 'Writes need the owner, admin or member role' },
    });
    expect(c.sent).toHaveLength(1);
    expect(c.sent[0]!.method).toBe('POST');
    expect(c.sent[0]!.headers.get('authorization')).toBe('Bearer svc_pat_unit');
    expect(c.sent[0]!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await c.sent[0]!.json()).toEqual({ name: 'x' });
    await c.close();
  });

  it('rejects invalid arguments before asking the API (the schema is the SDK-validated zod shape)', async () => {
    const c = await connect(() => json(200, {}), { defaultProjectId: 'p1' });
    const res = await c.call('list_runs', { limit: 7 });
    expect(res.isError).toBe(true);
    expect(res.text).toMatch(/limit/);
    expect(c.sent).toHaveLength(0);
    await c.close();
  });

  it("uses the argument, else the default project, else the token's only project; otherwise asks for projectId", async () => {
    let only: unknown = { id: 'solo', name: 'Solo' };
    const c = await connect((url) => {
      if (url.pathname === '/api/v1/public/token-info')
        return json(200, { success: true, data: { type: 'pat', scopes: [], project: only } });
      return json(200, { success: true, data: [], pagination: { page: 1, limit: 10, total: 0, hasNext: false, hasPrev: false } });
    });
    await c.call('list_runs', { projectId: 'given' });
    await c.call('list_runs');
    expect(c.sent.map((r) => new URL(r.url).pathname)).toEqual([
      '/api/v1/public/given/test-runs',
      '/api/v1/public/token-info',
      '/api/v1/public/solo/test-runs',
    ]);
    only = undefined;
    const res = await c.call('list_runs');
    expect(JSON.parse(res.text).error.code).toBe('PROJECT_REQUIRED');
    await c.close();

    const d = await connect(() => json(200, { success: true, data: [], pagination: { page: 1, hasNext: false } }), {
      defaultProjectId: 'dflt',
    });
    await d.call('list_runs', { branch: 'main', status: 'failed', startDate: '2026-01-01T00:00:00Z', endDate: '2026-02-01T00:00:00Z' });
    const url = new URL(d.sent[0]!.url);
    expect(url.pathname).toBe('/api/v1/public/dflt/test-runs');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      branch: 'main',
      status: 'failed',
      start_date: '2026-01-01T00:00:00Z',
      end_date: '2026-02-01T00:00:00Z',
    });
    await d.close();
  });

  it('reports an unreachable API as NETWORK_ERROR', async () => {
    const c = await connect(
      () => {
        throw new TypeError('fetch failed');
      },
      { defaultProjectId: 'p1' },
    );
    expect(JSON.parse((await c.call('get_dashboard')).text).error.code).toBe('NETWORK_ERROR');
    await c.close();
  });
});

describe('documentation', () => {
  it('names every tool in the package README and the repository README', () => {
    for (const file of [path.join(__dirname, '..', 'README.md'), path.join(__dirname, '..', '..', '..', 'README.md')]) {
      const text = fs.readFileSync(file, 'utf8');
      expect(Object.keys(TOOLS).filter((name) => !text.includes(`\`${name}\``))).toEqual([]);
    }
  });
});
