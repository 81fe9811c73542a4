/**
 * Compression over HTTP, as a client sees it on the wire.
 * - The web app's files: a hashed script is sent as the build's brotli copy to a client that accepts brotli, as its
 *   gzip copy to one that accepts only gzip, and as it is otherwise — always the same bytes once decoded, cacheable
 *   for a year, with `Vary: Accept-Encoding`, small files too; an unknown one is 404.
 * - API answers of 1 KB or more are compressed by the gateway for a client that accepts brotli or gzip, and are the
 *   same JSON once decoded; smaller ones, and any for a client that accepts neither, are sent as they are; an
 *   idempotent replay gives the first answer whatever either request accepted; artifacts are sent as stored.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { largePlaywrightReport, testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A request whose answer's body is returned as it came over the wire (fetch would decode it). */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${testSystem().gatewayUrl}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const get = (path: string, headers: Record<string, string> = {}) => send('GET', path, headers);

describe("the web app's files", () => {
  let script: string;
  beforeAll(async () => {
    const index = await get('/');
    expect(index.status).toBe(200);
    script = /<script[^>]+src="(\/assets\/index-[^"]+\.js)"/.exec(index.body.toString())![1]!;
  });

  it('sends a script brotli-compressed to a browser that accepts brotli, gzip-compressed to one that accepts gzip, as is otherwise', async () => {
    const plain = await get(script, { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(plain.body.length).toBeGreaterThan(100_000);

    const br = await get(script, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    // A third of the bytes at most (about a quarter in practice).
    expect(br.body.length).toBeLessThan(plain.body.length / 3);

    const gz = await get(script, { 'accept-encoding': 'gzip' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).equals(plain.body)).toBe(true);

    for (const a of [plain, br, gz]) {
      expect(a.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(String(a.headers.vary).toLowerCase()).toContain('accept-encoding');
      expect(Number(a.headers['content-length'])).toBe(a.body.length);
    }
    // No Accept-Encoding at all: as is.
    expect((await get(script)).headers['content-encoding']).toBeUndefined();
  });

  it('sends a small script compressed from its copy too, and answers 404 for an unknown file whatever the client accepts', async () => {
    const scripts = [...(await get(script, { 'accept-encoding': 'identity' })).body.toString().matchAll(/assets\/([\w-]+\.js)/g)].map(
      (m) => `/assets/${m[1]}`,
    );
    let small: { plain: Answer; br: Answer } | undefined;
    for (const s of new Set(scripts)) {
      const plain = await get(s, { 'accept-encoding': 'identity' });
      if (plain.status === 200 && plain.body.length < 1024) {
        small = { plain, br: await get(s, { 'accept-encoding': 'br, gzip' }) };
        break;
      }
    }
    expect(small?.br.status).toBe(200);
    expect(small!.br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(small!.br.body).equals(small!.plain.body)).toBe(true);
    expect(Number(small!.br.headers['content-length'])).toBe(small!.br.body.length);

    for (const enc of ['br', 'gzip', 'identity']) {
      const missing = await get('/assets/index-nope.js', { 'accept-encoding': enc });
      expect([enc, missing.status]).toEqual([enc, 404]);
    }
  });
});

describe('API answers', () => {
  let t: Tenant;
  const auth = () => ({ authorization: `Bearer ${t.token}` });
  beforeAll(async () => {
    t = await testAdmin().tenant('owner');
  });

  const decode = (a: Answer) =>
    a.headers['content-encoding'] === 'br'
      ? zlib.brotliDecompressSync(a.body)
      : a.headers['content-encoding'] === 'gzip'
        ? zlib.gunzipSync(a.body)
        : a.body;

  it('compresses a large answer for a client that accepts brotli or gzip, to the same JSON; sends it as is otherwise', async () => {
    const path = '/api/v1/public/openapi.json';
    const plain = await get(path, { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    const br = await get(path, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(String(br.headers.vary).toLowerCase()).toContain('accept-encoding');
    expect(br.body.length).toBeLessThan(plain.body.length / 5);
    const gz = await get(path, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decode(br).toString())).toEqual(JSON.parse(plain.body.toString()));
    expect(JSON.parse(decode(gz).toString())).toEqual(JSON.parse(plain.body.toString()));
    expect((await get(path, { 'accept-encoding': 'deflate' })).headers['content-encoding']).toBeUndefined();
    expect((await get(path)).headers['content-encoding']).toBeUndefined();
  });

  it('sends an authenticated answer compressed with its headers; a small one and an error as they are', async () => {
    const suite = await testApi(t.token).post(`/${t.projectId}/manual-test-suites`, { name: 'Compression' });
    expect(suite.status).toBe(201);
    for (let i = 0; i < 12; i++) {
      const c = await testApi(t.token).post(`/${t.projectId}/manual-test-cases`, { title: `Case ${i}`, suiteId: suite.body.data._id });
      expect(c.status).toBe(201);
    }
    const list = `/api/v1/public/${t.projectId}/manual-test-cases?limit=25`;
    const plain = await get(list, { ...auth(), 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.body.length).toBeGreaterThan(1024);
    const br = await get(list, { ...auth(), 'accept-encoding': 'br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['x-ratelimit-limit']).toBe(plain.headers['x-ratelimit-limit']);
    expect(br.headers['x-request-id']).toBeDefined();
    expect(JSON.parse(decode(br).toString())).toEqual(JSON.parse(plain.body.toString()));

    const small = await get(`/api/v1/public/${t.projectId}/token-info`, { ...auth(), 'accept-encoding': 'br' });
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString()).data).toBeDefined();
    const refused = await get(`/api/v1/public/${t.projectId}/manual-test-cases?limit=7`, { ...auth(), 'accept-encoding': 'br' });
    expect(refused.status).toBe(400);
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(refused.body.toString()).error.code).toBe('INVALID_LIMIT');
  });

  it('refuses a compressed request body as a body that is not JSON, and creates nothing', async () => {
    const before = await testApi(t.token).get(`/${t.projectId}/manual-test-suites?limit=100`);
    const answer = await send(
      'POST',
      `/api/v1/public/${t.projectId}/manual-test-suites`,
      { ...auth(), 'content-type': 'application/json', 'content-encoding': 'gzip' },
      zlib.gzipSync(JSON.stringify({ name: 'Compressed' })),
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const after = await testApi(t.token).get(`/${t.projectId}/manual-test-suites?limit=100`);
    expect(after.body.pagination.total).toBe(before.body.pagination.total);

    // A report streamed to the runs service as well.
    const key = (await testAdmin().apiKey(t.projectId)).token;
    const report = await send(
      'POST',
      `/api/v1/ingest/${t.projectId}/playwright`,
      { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      zlib.gzipSync(JSON.stringify(largePlaywrightReport(20))),
    );
    expect(report.status).toBe(400);
    expect(JSON.parse(report.body.toString()).success).toBe(false);
    expect((await testApi(t.token).get(`/${t.projectId}/test-runs?limit=10`)).body.pagination.total).toBe(0);
  });

  it('replays an idempotent create as first answered, whatever either request accepted', async () => {
    const key = `compression-${t.projectId}`;
    const body = JSON.stringify({ name: 'Replayed', description: 'x'.repeat(1500) });
    const post = (encoding: string) =>
      send(
        'POST',
        `/api/v1/public/${t.projectId}/manual-test-suites`,
        { ...auth(), 'content-type': 'application/json', 'idempotency-key': key, 'accept-encoding': encoding },
        body,
      );
    const first = await post('br');
    expect(first.status).toBe(201);
    expect(first.headers['content-encoding']).toBe('br');
    const created = JSON.parse(decode(first).toString());
    expect(created.data.description).toHaveLength(1500);
    const replayPlain = await post('identity');
    expect(replayPlain.status).toBe(201);
    expect(replayPlain.headers['idempotent-replayed']).toBe('true');
    expect(replayPlain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(replayPlain.body.toString())).toEqual(created);
    const replayGz = await post('gzip');
    expect(replayGz.headers['idempotent-replayed']).toBe('true');
    expect(replayGz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decode(replayGz).toString())).toEqual(created);
  });
});
