/**
 * The web app's files over HTTP from the gateway: a hashed script is sent as the build's brotli copy to a client
 * that accepts brotli, as its gzip copy to one that accepts only gzip, and as it is otherwise — always the same
 * bytes once decoded, cacheable for a year, with `Vary: Accept-Encoding`; a file too small to have copies, and an
 * unknown one, are answered as before.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { testSystem } from '@assay/testkit';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET whose body is returned as it came over the wire (fetch would decode it). */
function get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(`${testSystem().gatewayUrl}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

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

it('sends a file without compressed copies as is, and answers 404 for an unknown file whatever the client accepts', async () => {
  const index = (await get('/', { 'accept-encoding': 'identity' })).body.toString();
  const scripts = [...(await get(script, { 'accept-encoding': 'identity' })).body.toString().matchAll(/assets\/([\w-]+\.js)/g)].map(
    (m) => `/assets/${m[1]}`,
  );
  let small: Answer | undefined;
  for (const s of new Set(scripts)) {
    const a = await get(s, { 'accept-encoding': 'identity' });
    if (a.status === 200 && a.body.length < 1024) {
      small = await get(s, { 'accept-encoding': 'br, gzip' });
      expect(small.body.equals(a.body)).toBe(true);
      break;
    }
  }
  expect(index).toContain('<div id="root">');
  expect(small?.status).toBe(200);
  expect(small?.headers['content-encoding']).toBeUndefined();

  for (const enc of ['br', 'gzip', 'identity']) {
    const missing = await get('/assets/index-nope.js', { 'accept-encoding': enc });
    expect([enc, missing.status]).toEqual([enc, 404]);
  }
});
