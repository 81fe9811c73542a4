/** The page iterators against a real HTTP server, over both ways the API pages: page numbers and offsets. */
import { AssayApiError, createAssayClient } from '../src';
import { envelope, recordingSleep, startServer, type Recorded, type TestServer } from './server';

const projectId = 'p1';
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i + 1}` }));

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Pages `all` the way the API does by page number (spec §2.1); `webhooks` = the variant with hasMore only. */
function byPage(all: { id: string }[], req: Recorded, webhooks = false) {
  const page = Number(req.url.searchParams.get('page') ?? 1);
  const limit = Number(req.url.searchParams.get('limit') ?? 10);
  const data = all.slice((page - 1) * limit, page * limit);
  const hasNext = page * limit < all.length;
  const pagination = webhooks
    ? { page, limit, total: all.length, hasMore: hasNext }
    : { page, limit, total: all.length, hasNext, hasPrev: page > 1, hasMore: hasNext };
  return { status: 200, body: { success: true, data, pagination } };
}

/** Pages `all` by offset, as the test-case history does (CONTRACT §2). */
function byOffset(all: { id: string }[], req: Recorded) {
  const offset = Number(req.url.searchParams.get('offset') ?? 0);
  const limit = Number(req.url.searchParams.get('limit') ?? 10);
  const data = all.slice(offset, offset + limit);
  const hasNext = offset + limit < all.length;
  return { status: 200, body: { success: true, data, pagination: { offset, limit, total: all.length, hasNext, hasMore: hasNext } } };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('paginate', () => {
  it('follows page numbers while hasNext, keeping the other query parameters', async () => {
    const all = items(23);
    server = await startServer((req) => byPage(all, req));
    const client = createAssayClient({ baseUrl: server.url, token: 't' });
    const runs = await collect(
      client.paginate('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId }, query: { limit: 10, branch: 'main' } } }),
    );
    expect(runs.map((r) => r.id)).toEqual(all.map((r) => r.id));
    expect(server.requests.map((r) => r.url.pathname)).toEqual(Array(3).fill('/api/v1/public/p1/test-runs'));
    expect(server.requests.map((r) => Object.fromEntries(r.url.searchParams))).toEqual([
      { limit: '10', branch: 'main' },
      { limit: '10', branch: 'main', page: '2' },
      { limit: '10', branch: 'main', page: '3' },
    ]);
  });

  it('follows the webhook lists variant (page, limit, total, hasMore)', async () => {
    const all = items(5);
    server = await startServer((req) => byPage(all, req, true));
    const client = createAssayClient({ baseUrl: server.url });
    const hooks = await collect(
      client.paginate('/api/v1/public/{projectId}/webhooks', { params: { path: { projectId }, query: { limit: 10 } } }),
    );
    expect(hooks).toHaveLength(5);
    expect(server.requests).toHaveLength(1);
    const more = items(25);
    await server.close();
    server = await startServer((req) => byPage(more, req, true));
    const client2 = createAssayClient({ baseUrl: server.url });
    const pages = await collect(
      client2.pages('/api/v1/public/{projectId}/webhooks', { params: { path: { projectId }, query: { limit: 10 } } }),
    );
    expect(pages.map((p) => p.items.length)).toEqual([10, 10, 5]);
    expect(pages.map((p) => p.pagination.page)).toEqual([1, 2, 3]);
  });

  it('follows offsets while hasNext (test-case history)', async () => {
    const all = items(27);
    server = await startServer((req) => byOffset(all, req));
    const client = createAssayClient({ baseUrl: server.url });
    const history = await collect(
      client.paginate('/api/v1/public/{projectId}/test-cases/history', {
        params: { path: { projectId }, query: { title: 't', limit: 10 } },
      }),
    );
    expect(history.map((h) => (h as unknown as { id: string }).id)).toEqual(all.map((r) => r.id));
    expect(server.requests.map((r) => r.url.searchParams.get('offset'))).toEqual([null, '10', '20']);
  });

  it('starts where the caller says (page or offset) and stops after maxPages', async () => {
    const all = items(50);
    server = await startServer((req) => byPage(all, req));
    const client = createAssayClient({ baseUrl: server.url });
    const runs = await collect(
      client.paginate(
        '/api/v1/public/{projectId}/test-runs',
        { params: { path: { projectId }, query: { page: 2, limit: 10 } } },
        { maxPages: 2 },
      ),
    );
    expect(runs.map((r) => r.id)).toEqual(all.slice(10, 30).map((r) => r.id));
  });

  it('picks the items out of an object page (workflow rules)', async () => {
    const all = items(12);
    server = await startServer((req) => {
      const a = byPage(all, req);
      return { ...a, body: { ...a.body, data: { rules: a.body.data } } };
    });
    const client = createAssayClient({ baseUrl: server.url });
    const rules = await collect(
      client.paginate(
        '/api/v1/public/{projectId}/workflow-rules',
        { params: { path: { projectId }, query: { limit: 10 } } },
        { items: (d) => d.rules },
      ),
    );
    expect(rules).toHaveLength(12);
  });

  it('retries a page that failed with a 503 and goes on', async () => {
    const all = items(15);
    server = await startServer((req, i) => (i === 1 ? { status: 503, body: envelope('SERVICE_UNAVAILABLE') } : byPage(all, req)));
    const rec = recordingSleep();
    const client = createAssayClient({ baseUrl: server.url, sleep: rec.sleep });
    const runs = await collect(
      client.paginate('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId }, query: { limit: 10 } } }),
    );
    expect(runs).toHaveLength(15);
    expect(server.requests.map((r) => r.url.searchParams.get('page'))).toEqual([null, '2', '2']);
    expect(rec.delays).toEqual([1000]);
  });

  it('throws AssayApiError (status, code, request id) when a page fails, without retrying a 4xx', async () => {
    server = await startServer(() => ({
      status: 404,
      headers: { 'x-request-id': 'req-1' },
      body: envelope('NOT_FOUND', 'Project not found'),
    }));
    const client = createAssayClient({ baseUrl: server.url });
    const err = await collect(client.paginate('/api/v1/public/{projectId}/test-runs', { params: { path: { projectId } } })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AssayApiError);
    expect(err).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'Project not found', requestId: 'req-1' });
    expect(server.requests).toHaveLength(1);
  });
});
