/**
 * Limits on input that Node enforces before Fastify sees a request (CONTRACT §3): oversize headers (431),
 * a request not received within REQUEST_TIMEOUT_MS (408) and malformed HTTP (400) — all answered in the
 * JSON envelope. Raw sockets, because these are exactly the requests an HTTP client would refuse to send.
 * Artifact uploads are bounded by progress instead (ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS): a slow one that keeps
 * sending is stored however long it takes, a stalled one ends in 408.
 * Body limits are in envelopes.test.ts and gateway/test/policies.test.ts.
 */
import { createHash } from 'node:crypto';
import net from 'node:net';
import {
  startPrivateGateway,
  startPrivateRedis,
  testAdmin,
  testApi,
  testSystem,
  type PrivateGateway,
  type PrivateRedis,
  type Tenant,
} from '@assay/testkit';

const REQUEST_TIMEOUT_MS = 1000;
const UPLOAD_IDLE_MS = 3000;

/** Writes `chunks` to a fresh connection (with pauses between them) and returns everything it answers. */
function rawExchange(url: string, chunks: string[], pauseMs = 0): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (data += d));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve(data) : reject(err)));
    const timer = setTimeout(() => socket.destroy(), 15000);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) break;
        socket.write(chunk);
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}

function parse(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine?.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
}

describe('limits Node enforces, answered in the envelope', () => {
  let slow: PrivateGateway;
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    slow = await startPrivateGateway({
      name: 'limits',
      env: {
        REDIS_URL: redis.url,
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS: String(UPLOAD_IDLE_MS),
        MAX_HEADER_BYTES: '8192',
      },
    });
  });
  afterAll(async () => {
    await slow?.stop();
    await redis?.remove();
  });

  it('431 HEADERS_TOO_LARGE above MAX_HEADER_BYTES (default 16 KiB on the shared gateway)', async () => {
    for (const [url, size] of [
      [testSystem().gatewayUrl, 17 * 1024],
      [slow.url, 9 * 1024],
    ] as const) {
      const raw = await rawExchange(url, [`GET /api/v1/public/token-info HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(size)}\r\n\r\n`]);
      const res = parse(raw);
      expect(res.status).toBe(431);
      expect(res.headers['content-type']).toContain('application/json');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body).toEqual({ success: false, error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) } });
    }
    // just under the limit is fine
    const t = await testAdmin().tenant('owner');
    const ok = await fetch(`${slow.url}/api/v1/public/${t.projectId}/token-info`, {
      headers: { authorization: `Bearer ${t.token}`, 'x-big': 'a'.repeat(6 * 1024) },
    });
    expect(ok.status).toBe(200);
  });

  it('431 HEADERS_TOO_LARGE for a URL over the limit too (the request line counts), without rate-limit headers', async () => {
    const t = await testAdmin().tenant('owner');
    const search = (chars: number) =>
      fetch(`${testSystem().gatewayUrl}/api/v1/public/${t.projectId}/releases?search=${encodeURIComponent('é'.repeat(chars))}`, {
        headers: { authorization: `Bearer ${t.token}` },
      });
    // 3,000 characters, 18,000 bytes once percent-encoded: any operation's URL can grow past the limit.
    const res = await search(3000);
    expect(res.status).toBe(431);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
    expect(await res.json()).toEqual({ success: false, error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String) } });
    expect((await search(300)).status).toBe(200);
  });

  it('408 REQUEST_TIMEOUT when the request is not received within REQUEST_TIMEOUT_MS', async () => {
    const t = await testAdmin().tenant('owner');
    const raw = await rawExchange(slow.url, [
      `POST /api/v1/public/${t.projectId}/manual-test-suites HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
    ]);
    const res = parse(raw);
    expect(res.status).toBe(408);
    expect(res.body).toEqual({ success: false, error: { code: 'REQUEST_TIMEOUT', message: expect.any(String) } });
  });

  it('400 VALIDATION_ERROR envelope for a malformed HTTP request', async () => {
    const res = parse(await rawExchange(testSystem().gatewayUrl, ['GET / HTTP/1.1\r\nHost: x\r\nBad Header Without Colon\r\n\r\n']));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });
});

/** A run with one failing test whose attempt names a video attachment (uploaded by the tests below). */
async function runWithVideo(t: Tenant): Promise<{ runId: string; query: string }> {
  const file = 'specs/upload.spec.ts';
  const attachment = { name: 'video', contentType: 'video/webm', path: '/ci/test-results/video.webm' };
  const report = {
    config: { rootDir: '/ci' },
    suites: [
      {
        title: file,
        file,
        suites: [],
        specs: [
          {
            title: 'records a video',
            file,
            ok: false,
            tags: [],
            tests: [
              {
                projectName: 'chromium',
                expectedStatus: 'passed',
                status: 'unexpected',
                annotations: [],
                results: [
                  {
                    retry: 0,
                    status: 'failed',
                    duration: 100,
                    startTime: new Date().toISOString(),
                    errors: [{ message: 'Error: boom' }],
                    steps: [],
                    stdout: [],
                    stderr: [],
                    attachments: [attachment],
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
    stats: { startTime: new Date().toISOString(), duration: 100 },
    errors: [],
  };
  const res = await testApi(t.token).request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
    rawBody: JSON.stringify(report),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.status).toBe(201);
  const q = new URLSearchParams({
    file,
    titlePath: 'records a video',
    projectName: 'chromium',
    retry: '0',
    name: 'video',
    path: attachment.path,
  });
  return { runId: res.body.data.runId as string, query: q.toString() };
}

/** A body that arrives in `chunks` pieces `gapMs` apart (a slow link that never stops). */
function trickle(bytes: Buffer, chunks: number, gapMs: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const size = Math.ceil(bytes.length / chunks);
  return new ReadableStream({
    async pull(c) {
      if (sent > 0) await new Promise((r) => setTimeout(r, gapMs));
      if (sent >= bytes.length) return c.close();
      c.enqueue(new Uint8Array(bytes.subarray(sent, sent + size)));
      sent += size;
    },
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('artifact uploads are bounded by progress (ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS), not by REQUEST_TIMEOUT_MS', () => {
  let slow: PrivateGateway;
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    slow = await startPrivateGateway({
      name: 'uploads',
      env: {
        REDIS_URL: redis.url,
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS: String(UPLOAD_IDLE_MS),
      },
    });
  });
  afterAll(async () => {
    await slow?.stop();
    await redis?.remove();
  });

  it('stores an upload that takes five times REQUEST_TIMEOUT_MS (and longer than a service call may) but never stops', async () => {
    const t = await testAdmin().tenant('owner');
    const { runId, query } = await runWithVideo(t);
    const video = Buffer.alloc(640 * 1024);
    for (let i = 0; i < video.length; i++) video[i] = (i * 31) % 251;
    const started = Date.now();
    const res = await fetch(`${slow.url}/api/v1/ingest/${t.projectId}/runs/${runId}/artifacts?${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'video/webm' },
      body: trickle(video, 10, 500),
      duplex: 'half',
    } as RequestInit);
    const body = (await res.json()) as any;
    expect([res.status, body.success]).toEqual([201, true]);
    expect(Date.now() - started).toBeGreaterThan(4.5 * REQUEST_TIMEOUT_MS);
    expect(body.data).toMatchObject({ size: video.length, sha256: sha(video) });
    const stored = Buffer.from(await (await fetch(body.data.url)).arrayBuffer());
    expect(stored.equals(video)).toBe(true);

    // The compatibility blob PUT (tdpw) likewise.
    const key = await testAdmin().apiKey(t.projectId);
    const token = await slow
      .api()
      .request('POST', '/api/storage/token', { body: {}, headers: { 'x-api-key': key.uploadKey }, authorization: null });
    const d = token.body.data;
    const put = await fetch(`${d.containerUrl}/${d.blobPath}/json/attachments/slow.webm?${d.sasToken}`, {
      method: 'PUT',
      headers: { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'video/webm' },
      body: trickle(video, 4, 700),
      duplex: 'half',
    } as RequestInit);
    expect(put.status).toBe(201);
  });

  it('answers 408 to an upload that stalls for ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS, closes the connection and stores nothing', async () => {
    const t = await testAdmin().tenant('owner');
    const { runId, query } = await runWithVideo(t);
    const started = Date.now();
    const raw = await rawExchange(slow.url, [
      `POST /api/v1/ingest/${t.projectId}/runs/${runId}/artifacts?${query} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.token}\r\n` +
        `Content-Type: video/webm\r\nContent-Length: 100000\r\n\r\n${'v'.repeat(5000)}`,
    ]);
    const elapsed = Date.now() - started;
    const res = parse(raw);
    expect(res.status).toBe(408);
    expect(res.headers.connection).toBe('close');
    expect(res.body).toEqual({ success: false, error: { code: 'REQUEST_TIMEOUT', message: expect.stringMatching(/upload/) } });
    // Not at REQUEST_TIMEOUT_MS: at the idle timeout.
    expect(elapsed).toBeGreaterThanOrEqual(UPLOAD_IDLE_MS - 100);
    expect(elapsed).toBeLessThan(UPLOAD_IDLE_MS + 5000);
    const detail = (await testApi(t.token).get(`/api/v1/public/${t.projectId}/test-runs/${runId}?include=artifacts`)).body.data;
    expect(detail.artifacts.storedBytes).toBe(0);
    expect(detail.artifacts.items[0].artifact).toBeNull();
  });

  it('bounds the next request on the same connection by REQUEST_TIMEOUT_MS again', async () => {
    const t = await testAdmin().tenant('owner');
    const key = await testAdmin().apiKey(t.projectId);
    const d = (
      await slow.api().request('POST', '/api/storage/token', { body: {}, headers: { 'x-api-key': key.uploadKey }, authorization: null })
    ).body.data;
    const { pathname, search } = new URL(`${d.containerUrl}/${d.blobPath}/json/attachments/a.png?${d.sasToken}`);
    const started = Date.now();
    const raw = await rawExchange(
      slow.url,
      [
        `PUT ${pathname}${search} HTTP/1.1\r\nHost: x\r\nx-ms-blob-type: BlockBlob\r\nContent-Type: image/png\r\nContent-Length: 3\r\n\r\npng`,
        `POST /api/v1/public/${t.projectId}/manual-test-suites HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
      ],
      500,
    );
    const elapsed = Date.now() - started;
    const [first, second] = raw.split(/(?=HTTP\/1\.1 )/);
    expect(parse(first!).status).toBe(201);
    expect(parse(second!).status).toBe(408);
    // The second request was not left to the upload's idle timeout.
    expect(elapsed).toBeLessThan(500 + UPLOAD_IDLE_MS);
  });
});
