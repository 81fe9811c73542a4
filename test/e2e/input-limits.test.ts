/**
 * Limits on input that Node enforces before Fastify sees a request (CONTRACT §3): oversize headers (431),
 * a request not received within REQUEST_TIMEOUT_MS (408) and malformed HTTP (400) — all answered in the
 * JSON envelope. Raw sockets, because these are exactly the requests an HTTP client would refuse to send.
 * Body limits are in envelopes.test.ts and gateway/test/policies.test.ts.
 */
import net from 'node:net';
import { startPrivateGateway, startPrivateRedis, testAdmin, testSystem, type PrivateGateway, type PrivateRedis } from '@assay/testkit';

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
      env: { REDIS_URL: redis.url, REQUEST_TIMEOUT_MS: '1000', MAX_HEADER_BYTES: '8192' },
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
