/**
 * The webhooks service's own pieces, without the rest of the system: secrets at rest, the SSRF guard (with
 * private targets NOT allowed, as in production), and one HTTP attempt (redirects, timeouts, the body cap).
 */
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '@assay/webhook-verify';
import { loadWebhooksConfig } from '../src/config';
import { generateSecret, SecretBox } from '../src/domain/secrets';
import { NOT_A_PUBLIC_TARGET, rangeInWords, refusedLiteral, refusedRange } from '../src/domain/ssrf';
import { Sender } from '../src/domain/sender';
import { eventsToProto } from '@assay/contracts/webhooks/webhooks';
import { eventsOf } from '../src/domain/rules';

const KEY = 'k'.repeat(48);
const INTERNAL = { INTERNAL_AUTH_TOKEN: 'c'.repeat(32), INTERNAL_CALLERS: `gateway:${'0'.repeat(64)}` };

describe('signing secrets at rest', () => {
  it('round-trips, never stores the clear text, and binds the ciphertext to its subscription', () => {
    const box = new SecretBox(KEY);
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const stored = box.encrypt(secret, 'sub-1');
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain(secret.slice(6));
    expect(box.encrypt(secret, 'sub-1')).not.toBe(stored); // fresh IV each time
    expect(box.decrypt(stored, 'sub-1')).toBe(secret);
    expect(() => box.decrypt(stored, 'sub-2')).toThrow(); // copied onto another row: refused
    expect(() => new SecretBox('x'.repeat(48)).decrypt(stored, 'sub-1')).toThrow(); // another key
    const [v, iv, tag, ct] = stored.split('.');
    const flipped = Buffer.from(ct!, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.decrypt([v, iv, tag, flipped.toString('base64url')].join('.'), 'sub-1')).toThrow(); // tampered
    // A truncated tag (4 bytes: forgeable by brute force) is refused, not checked as a short tag.
    const short = Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => box.decrypt([v, iv, short, ct].join('.'), 'sub-1')).toThrow('unknown secret format');
  });

  it('reads values stored in the documented form (HKDF-SHA256 key, AES-256-GCM, the subscription id as AAD)', () => {
    // Made with node:crypto alone, as docs/webhooks.md describes it: what is stored keeps decrypting.
    const key = Buffer.from(hkdfSync('sha256', Buffer.from(KEY, 'utf8'), 'assay', 'assay/webhooks/signing-secret/v1', 32));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
    cipher.setAAD(Buffer.from('sub-7', 'utf8'));
    const ct = Buffer.concat([cipher.update('whsec_stored-before', 'utf8'), cipher.final()]);
    const stored = ['v1', iv, cipher.getAuthTag(), ct].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    expect(new SecretBox(KEY).decrypt(stored, 'sub-7')).toBe('whsec_stored-before');
  });

  it('refuses a short SECRETS_KEY at start, naming the setting and never printing its value', () => {
    const value = 'short-but-secret-value';
    let message = '';
    try {
      loadWebhooksConfig({ ...INTERNAL, SECRETS_KEY: value });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('SECRETS_KEY');
    expect(message).not.toContain(value);
    expect(() => loadWebhooksConfig({ ...INTERNAL })).toThrow(/SECRETS_KEY/);
  });

  it('reads the retry schedule (fractions allowed) with the spec defaults', () => {
    const base = { ...INTERNAL, SECRETS_KEY: KEY };
    const c = loadWebhooksConfig(base);
    expect(c.WEBHOOK_RETRY_DELAYS_SECONDS).toEqual([60, 300, 1800, 7200]);
    expect(c.WEBHOOK_TIMEOUT_MS).toBe(10000);
    expect(c.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(loadWebhooksConfig({ ...base, WEBHOOK_RETRY_DELAYS_SECONDS: '0.2, 0.2,1' }).WEBHOOK_RETRY_DELAYS_SECONDS).toEqual([0.2, 0.2, 1]);
    expect(() => loadWebhooksConfig({ ...base, WEBHOOK_RETRY_DELAYS_SECONDS: '60,-1' })).toThrow(/WEBHOOK_RETRY_DELAYS_SECONDS/);
    expect(() => loadWebhooksConfig({ ...base, WEBHOOK_RETRY_DELAYS_SECONDS: '60,,300' })).toThrow();
  });

  it('reads the delivery retention (30 days, fractions allowed) and its sweep interval (an hour); refuses the rest', () => {
    const base = { ...INTERNAL, SECRETS_KEY: KEY };
    const c = loadWebhooksConfig(base);
    expect(c.WEBHOOK_DELIVERY_RETENTION_DAYS).toBe(30);
    expect(c.WEBHOOK_DELIVERY_SWEEP_INTERVAL_SECONDS).toBe(3600);
    expect(loadWebhooksConfig({ ...base, WEBHOOK_DELIVERY_RETENTION_DAYS: '0.5' }).WEBHOOK_DELIVERY_RETENTION_DAYS).toBe(0.5);
    for (const days of ['0', '-1', 'a week', '3651'])
      expect(() => loadWebhooksConfig({ ...base, WEBHOOK_DELIVERY_RETENTION_DAYS: days })).toThrow(/WEBHOOK_DELIVERY_RETENTION_DAYS/);
    for (const seconds of ['0', 'hourly', '86401'])
      expect(() => loadWebhooksConfig({ ...base, WEBHOOK_DELIVERY_SWEEP_INTERVAL_SECONDS: seconds })).toThrow(
        /WEBHOOK_DELIVERY_SWEEP_INTERVAL_SECONDS/,
      );
  });
});

describe('events', () => {
  it('both spellings map to the same proto events (the contract), de-duplicated in canonical order; others are refused', () => {
    expect(eventsOf(eventsToProto(['run.finished', 'run.started', 'RUN_FINISHED']))).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    expect(() => eventsOf([])).toThrow();
    // An unknown spelling maps to UNSPECIFIED, which the service refuses.
    expect(() => eventsOf(eventsToProto(['Run.Started']))).toThrow();
  });
});

describe('SSRF guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['100::1', 'discard'],
    // ipaddr.js calls these unicast, but only 2000::/3 is global unicast
    ['4000::1', 'outside 2000::/3'],
    ['e000::1', 'outside 2000::/3'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusedRange(address)).toBe(range);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111'])('lets public %s through', (address) => {
    expect(refusedRange(address)).toBeUndefined();
  });

  it('judges IP-literal URL hosts, bracketed IPv6 included, and leaves names to the resolver', () => {
    expect(refusedLiteral('[::1]')).toBe('loopback');
    expect(refusedLiteral('127.0.0.1')).toBe('loopback');
    expect(refusedLiteral('example.com')).toBeUndefined();
  });

  it("names a refused range in words, not the address library's identifiers", () => {
    expect(['169.254.169.254', '100.64.0.1', 'fd12::1', '10.1.2.3', '::1'].map((a) => rangeInWords(refusedRange(a)!))).toEqual([
      'link-local',
      'carrier-grade NAT',
      'unique-local',
      'private',
      'loopback',
    ]);
  });
});

describe('one delivery attempt', () => {
  let server: http.Server;
  let base: string;
  const hits: { url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        hits.push({ url: req.url!, headers: req.headers, body });
        if (req.url === '/ok') return res.writeHead(204).end();
        if (req.url === '/redirect') return res.writeHead(302, { location: '/ok' }).end();
        if (req.url === '/slow') return setTimeout(() => res.writeHead(200).end(), 2000);
        if (req.url === '/huge') {
          res.writeHead(200);
          const chunk = Buffer.alloc(64 * 1024, 'x');
          for (let i = 0; i < 100; i++) res.write(chunk);
          return res.end();
        }
        res.writeHead(503).end('down');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const input = (url: string) => ({
    url,
    secret: 'whsec_abc',
    body: '{"a":1}',
    event: 'RUN_FINISHED',
    deliveryId: 'd1',
    timestamp: Math.floor(Date.now() / 1000),
  });

  it('sends the signed body with the three headers; any 2xx is a success', async () => {
    const sender = new Sender({ timeoutMs: 1000, allowPrivateTargets: true });
    const r = await sender.attempt(input(`${base}/ok`));
    await sender.close();
    expect(r).toEqual({ ok: true, statusCode: 204, responseMs: expect.any(Number), error: null });
    const hit = hits.find((h) => h.url === '/ok')!;
    expect(hit.body).toBe('{"a":1}');
    expect(hit.headers['x-service-event']).toBe('RUN_FINISHED');
    expect(hit.headers['x-service-delivery']).toBe('d1');
    expect(verifySignature(hit.body, hit.headers['x-service-signature'], 'whsec_abc')).toBeGreaterThan(0);
  });

  it('keeps its connections to a receiver that hints a 2 s keep-alive (a Node http server with keepAliveTimeout 2000)', async () => {
    let connections = 0;
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    receiver.keepAliveTimeout = 2000;
    receiver.on('connection', () => connections++);
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const sender = new Sender({ timeoutMs: 1000, allowPrivateTargets: true });
    try {
      // One after the other: the answer is drained in the background, so a second connection may be opened meanwhile.
      for (let i = 0; i < 10; i++) expect(await sender.attempt(input(url))).toMatchObject({ ok: true, statusCode: 200 });
      expect(connections).toBeLessThanOrEqual(2);
      // Idle past the hint minus the 1 s margin: closed by the sender before the receiver closes them, so the
      // next attempt opens a new connection rather than failing on a closed one.
      const before = connections;
      await new Promise((r) => setTimeout(r, 1200));
      expect(await sender.attempt(input(url))).toMatchObject({ ok: true, statusCode: 200 });
      expect(connections).toBe(before + 1);
    } finally {
      await sender.close();
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });

  it('does not follow a redirect: a failed attempt with the 3xx code', async () => {
    const before = hits.filter((h) => h.url === '/ok').length;
    const sender = new Sender({ timeoutMs: 1000, allowPrivateTargets: true });
    const r = await sender.attempt(input(`${base}/redirect`));
    await sender.close();
    expect(r).toMatchObject({ ok: false, statusCode: 302, error: 'redirect not followed (HTTP 302)' });
    expect(hits.filter((h) => h.url === '/ok').length).toBe(before);
  });

  it('records a non-2xx code, a timeout, a refused connection; does not read a large body', async () => {
    const sender = new Sender({ timeoutMs: 500, allowPrivateTargets: true });
    expect(await sender.attempt(input(`${base}/fail`))).toMatchObject({ ok: false, statusCode: 503, error: 'HTTP 503' });
    expect(await sender.attempt(input(`${base}/slow`))).toEqual({
      ok: false,
      statusCode: null,
      responseMs: null,
      error: 'timeout: no response within 500 ms',
    });
    expect(await sender.attempt(input('http://127.0.0.1:1/'))).toMatchObject({ ok: false, statusCode: null, error: 'connection refused' });
    expect(await sender.attempt(input(`${base}/huge`))).toMatchObject({ ok: true, statusCode: 200 });
    await sender.close();
  });

  it('with the guard on, refuses loopback after DNS resolution (localhost) and as a literal, sending nothing', async () => {
    const count = hits.length;
    const sender = new Sender({ timeoutMs: 1000, allowPrivateTargets: false });
    const port = new URL(base).port;
    for (const url of [`http://localhost:${port}/ok`, `${base}/ok`, `http://[::1]:${port}/ok`, `http://[::ffff:7f00:1]:${port}/ok`]) {
      const r = await sender.attempt(input(url));
      expect(r).toMatchObject({ ok: false, statusCode: null, error: NOT_A_PUBLIC_TARGET });
    }
    await sender.close();
    expect(hits.length).toBe(count);
  });

  it('records one neutral text for a refused target and a name that does not resolve (no probing of internal names)', async () => {
    const sender = new Sender({ timeoutMs: 2000, allowPrivateTargets: false });
    const refused = await sender.attempt(input(`http://localhost:${new URL(base).port}/ok`));
    const unknown = await sender.attempt(input('http://no-such-host.invalid/hook'));
    expect(refused.error).toBe(NOT_A_PUBLIC_TARGET);
    expect(unknown.error).toBe(NOT_A_PUBLIC_TARGET);
    expect(refused.error).not.toMatch(/loopback|private|127/);
    await sender.close();
  });
});
