/**
 * `Idempotency-Key` on POST creates (spec §4.4, CONTRACT §4), for every route whose config says
 * `idempotent: true` (POST routes that answer 201 or 202 get it by default; `idempotent: false` opts out).
 *
 * One Redis record per (token id, method, path, key):
 *   - the first request takes it with `SET NX` as `pending` with a 60 s lease (a crashed gateway never wedges
 *     a key: the lease simply expires) and runs the handler;
 *   - its answer (status, body, headers) replaces the record for IDEMPOTENCY_TTL_SECONDS — unless it is a 5xx,
 *     which releases the key so the retry the client is told to make runs again;
 *   - a request finding the record compares the SHA-256 fingerprint of its raw body (and query string): a
 *     different one → 422 IDEMPOTENCY_KEY_REUSE; the same one while `pending` → 409
 *     IDEMPOTENCY_KEY_IN_PROGRESS; the same one when done → the stored answer with `Idempotent-Replayed: true`.
 * The key is checked after authentication, rate limits and validation (preHandler), so requests rejected
 * before the handler (401/403/404/429, 400 VALIDATION_ERROR) are never stored and never take the key. Keys
 * longer than 255 characters (or empty) → 400 VALIDATION_ERROR through the route's header schema.
 * Every write to the record is a compare-and-set on the pending value, so a request whose lease expired can
 * never overwrite the record of the request that took the key after it.
 *
 * The lease is renewed while the request runs (every third of it), so a slow request — a 60 MB upload, a
 * service call near its deadline — keeps its key to the end: a retry meanwhile gets 409, never a second
 * resource. Only a holder that stopped renewing (a crashed gateway) loses the key when the lease runs out.
 *
 * Stored answers are encrypted (AES-256-GCM) with a key derived (HKDF-SHA256) from the credential the request
 * presented and the record's name: Redis holds neither the credential nor the raw Idempotency-Key, so whoever
 * reads Redis cannot read a stored answer — the signing secret a webhook create answers, say — while a retry
 * with the same credential and key decrypts it and gets the same answer back.
 *
 * The service that creates keeps a record too (the service kit's `withIdempotency`, told of the key by a header of
 * `callOptions`): written in the create's own transaction with its answer, it covers what Redis cannot, a service
 * that died between its commit and its answer, or a gateway that died meanwhile. A retry the gateway lets through
 * again is answered from it (`Idempotent-Replayed: true`, or 422 for another body) and creates nothing.
 *
 * Bodies the gateway streams to a service without reading them as JSON (ingestion) are fingerprinted as they
 * stream: the request that takes the key hashes its body on the way through (`streamedBodyHash`, fed by the
 * forwarder) and stores that fingerprint with its answer; a request that finds a finished record reads its
 * own body into the hash (it is not forwarded) and compares. The fingerprint is the same SHA-256 of the query
 * string, a newline and the body bytes either way. The runs service's record of such a body (ingestion) is
 * fingerprinted by the service as it spools the body: the header it gets names no fingerprint.
 */
import { createHash, hkdfSync, randomUUID, type Hash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Redis } from 'ioredis';
import { AppError } from '@assay/errors';
import { FINGERPRINT_OF_BODY, idempotencyHeaderValue, openAnswer, sealAnswer } from '@assay/service-kit';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX = 255;
/** CONTRACT §4: an in-flight lock that outlives a crashed process expires after 60 s. */
export const DEFAULT_LEASE_MS = 60_000;

/** Headers of the original answer that are not replayed (they describe this request, not the resource). */
const NOT_REPLAYED = new Set([
  'x-request-id',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  REPLAYED_HEADER.toLowerCase(),
]);

export const IdempotencyKeyHeader = {
  type: 'string',
  minLength: 1,
  maxLength: IDEMPOTENCY_KEY_MAX,
  description:
    'Optional. A retry with the same key within the replay window (24 h) replays the original answer (`Idempotent-Replayed: true`) instead of creating a duplicate; the same key with a different body → 422 IDEMPOTENCY_KEY_REUSE; while the first request is still running → 409 IDEMPOTENCY_KEY_IN_PROGRESS. Scoped to the token, method and path.',
};

interface PendingRecord {
  state: 'pending';
  fp: string;
  owner: string;
}
/** What is replayed: status, headers and body of the first answer. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}
interface DoneRecord {
  state: 'done';
  fp: string;
  /** The Answer, encrypted: base64 of IV (12 bytes) | tag (16 bytes) | ciphertext. */
  answer: string;
}
type IdemRecord = PendingRecord | DoneRecord;

interface Held {
  redisKey: string;
  pending: string;
  settled: boolean;
  /** The key that encrypts the stored answer (derived from the presented credential). */
  sealKey: Buffer;
  stopRenewal(): void;
  /** The record the service writes with the resource (`withIdempotency`; a streamed body's fingerprinted there). */
  forService?: string;
  /** The service answered from that record: the gateway's own was lost (see `callOptions`). */
  replayedByService?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The raw JSON body text of idempotent routes (for the fingerprint). */
    rawBody?: string;
    idempotency?: Held;
    /**
     * Set when this request holds an idempotency key and its body streams through unread: whoever consumes
     * the body (the ingestion forwarder) feeds every chunk to it.
     */
    streamedBodyHash?: Hash;
  }
}

// Compare-and-set on the pending value: only the request that holds the key may finish or release it.
const FINISH = `if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('set', KEYS[1], ARGV[2], 'EX', ARGV[3]) return 1 end return 0`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[1]) return 1 end return 0`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;

/** The credential the request presented (bearer token or upload key): the secret the record key derives from. */
function presentedCredential(request: FastifyRequest): string {
  const value = request.headers.authorization ?? request.headers['x-api-key'] ?? '';
  return Array.isArray(value) ? value.join(',') : value;
}

const sealKeyOf = (credential: string, redisKey: string) =>
  Buffer.from(hkdfSync('sha256', credential, 'assay-idempotency-v1', redisKey, 32));

function seal(key: Buffer, answer: Answer): string {
  return sealAnswer(key, Buffer.from(JSON.stringify(answer), 'utf8')).toString('base64');
}

/** The stored answer, or undefined when this credential cannot open it (a rotated token, another credential). */
function open(key: Buffer, sealed: string): Answer | undefined {
  const plain = openAnswer(key, Buffer.from(sealed, 'base64'));
  return plain ? (JSON.parse(plain.toString('utf8')) as Answer) : undefined;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
/** Marks the pending record of a streamed body: its fingerprint is known only once the body has gone through. */
const STREAMING = 'streaming';

/** The fingerprint of a body read here (not forwarded): SHA-256 of the query, a newline and the bytes. */
async function hashBody(request: FastifyRequest, query: string, limit: number): Promise<string> {
  const hash = createHash('sha256').update(`${query}\n`);
  let seen = 0;
  for await (const chunk of request.raw) {
    seen += (chunk as Buffer).length;
    if (seen > limit) throw new AppError('PAYLOAD_TOO_LARGE');
    hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}

/** The canonical path of a request: the /api/public/v1 alias is the same route as /api/v1/public. */
function canonicalPath(url: string): string {
  const path = (url.split('?')[0] ?? '/').replace(/^\/api\/public\/v1(?=\/|$)/, '/api/v1/public');
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function unavailable(err: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'Idempotency keys are temporarily unavailable; retry later', {
    cause: err,
    headers: { 'Retry-After': '5' },
  });
}

/** Whether a route honours Idempotency-Key: its config, or by default POST routes that answer 201/202. */
export function isIdempotentRoute(route: Pick<RouteOptions, 'method' | 'config' | 'schema'>): boolean {
  const configured = (route.config as { idempotent?: boolean } | undefined)?.idempotent;
  if (configured !== undefined) return configured;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.includes('POST')) return false;
  const response = (route.schema?.response ?? {}) as Record<string, unknown>;
  return '201' in response || '202' in response;
}

/** Adds `Idempotency-Key` to a route's header schema, so it is validated (≤ 255) and documented. */
function declareHeader(route: RouteOptions): void {
  const schema = (route.schema ??= {});
  const headers = (schema.headers ?? { type: 'object', properties: {} }) as { type?: string; properties?: Record<string, unknown> };
  if (headers.type !== 'object') return; // an unusual header schema: the preHandler check still applies
  schema.headers = { ...headers, properties: { ...(headers.properties ?? {}), 'Idempotency-Key': IdempotencyKeyHeader } };
}

export default fp(
  async function idempotencyPlugin(
    app: FastifyInstance,
    opts: { redis: Redis; ttlSeconds: number; leaseMs?: number; streamedBodyLimit: number },
  ) {
    const { redis, ttlSeconds } = opts;
    const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;

    app.decorateRequest('rawBody', undefined);
    app.decorateRequest('idempotency', undefined);
    app.decorateRequest('streamedBodyHash', undefined);

    app.addHook('onRoute', (route) => {
      const idempotent = isIdempotentRoute(route);
      route.config = { ...(route.config ?? {}), idempotent };
      if (idempotent) declareHeader(route);
    });

    // JSON bodies keep their raw text on idempotent routes: the fingerprint is of the bytes sent.
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (request.routeOptions.config.idempotent) request.rawBody = body as string;
      parseJson(request, body as string, done);
    });

    const settle = async (request: FastifyRequest, answer: Answer | null) => {
      let outcome = answer;
      const held = request.idempotency;
      if (!held || held.settled) return;
      held.settled = true;
      held.stopRenewal();
      try {
        let fingerprint = (JSON.parse(held.pending) as PendingRecord).fp;
        if (fingerprint === STREAMING) {
          // Only a body that went through whole has a fingerprint worth keeping; otherwise release the key.
          fingerprint = request.raw.readableEnded ? request.streamedBodyHash!.digest('hex') : '';
          if (!fingerprint) outcome = null;
        }
        if (outcome) {
          const record: DoneRecord = { state: 'done', fp: fingerprint, answer: seal(held.sealKey, outcome) };
          await redis.eval(FINISH, 1, held.redisKey, held.pending, JSON.stringify(record), String(ttlSeconds));
        } else {
          await redis.eval(RELEASE, 1, held.redisKey, held.pending);
        }
      } catch (err) {
        // The lease expires by itself; the answer still goes out.
        request.log.warn({ err: { message: (err as Error).message } }, 'could not settle the idempotency record');
      }
    };

    app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
      if (!request.routeOptions.config.idempotent || request.method !== 'POST') return;
      const raw = request.headers[IDEMPOTENCY_HEADER];
      if (raw === undefined) return;
      const key = Array.isArray(raw) ? raw.join(', ') : raw;
      if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX) {
        throw new AppError('VALIDATION_ERROR', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`, {
          details: [{ path: 'header.idempotency-key', message: `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters` }],
        });
      }
      const tokenId = request.auth?.token.id;
      if (!tokenId) return; // no caller to scope the key to (unauthenticated routes): no deduplication
      const hasBody = (request.headers['content-length'] ?? '0') !== '0' || request.headers['transfer-encoding'] !== undefined;
      const streamed = hasBody && request.rawBody === undefined;
      const path = canonicalPath(request.url);
      const redisKey = `assay:idem:${tokenId}:${sha256(`${request.method} ${path}\n${key}`)}`;
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      let fingerprint = streamed ? STREAMING : sha256(`${query}\n${request.rawBody ?? ''}`);
      const pending = JSON.stringify({ state: 'pending', fp: fingerprint, owner: randomUUID() } satisfies PendingRecord);
      const sealKey = sealKeyOf(presentedCredential(request), redisKey);

      for (let attempt = 0; attempt < 3; attempt++) {
        let current: string | null;
        try {
          if ((await redis.set(redisKey, pending, 'PX', leaseMs, 'NX')) === 'OK') {
            // Renewed while this request runs; a crashed gateway stops renewing and the lease runs out.
            const renewal = setInterval(
              () => void redis.eval(RENEW, 1, redisKey, pending, String(leaseMs)).catch(() => undefined),
              Math.max(20, Math.floor(leaseMs / 3)),
            );
            renewal.unref();
            request.idempotency = {
              redisKey,
              pending,
              settled: false,
              sealKey,
              stopRenewal: () => clearInterval(renewal),
              // A streamed body's fingerprint is the service's to take as it reads the body.
              forService: idempotencyHeaderValue({
                record: sha256(redisKey),
                fingerprint: streamed ? FINGERPRINT_OF_BODY : fingerprint,
                ttlSeconds,
                sealKey,
              }),
            };
            if (streamed) request.streamedBodyHash = createHash('sha256').update(`${query}\n`);
            return;
          }
          current = await redis.get(redisKey);
        } catch (err) {
          throw unavailable(err);
        }
        if (current === null) continue; // expired or released in between: try to take it again
        const record = JSON.parse(current) as IdemRecord;
        if (streamed && record.state === 'pending' && record.fp === STREAMING) throw new AppError('IDEMPOTENCY_KEY_IN_PROGRESS');
        // A streamed body is read here only to compare: this request will not reach the service.
        if (fingerprint === STREAMING) fingerprint = await hashBody(request, query, opts.streamedBodyLimit);
        if (record.fp !== fingerprint) throw new AppError('IDEMPOTENCY_KEY_REUSE');
        if (record.state === 'pending') throw new AppError('IDEMPOTENCY_KEY_IN_PROGRESS');
        const answer = open(sealKey, record.answer);
        if (!answer)
          throw new AppError('IDEMPOTENCY_KEY_REUSE', 'This key was used with another credential (a rotated token?); use a new key');
        reply.code(answer.status).headers(answer.headers).header(REPLAYED_HEADER, 'true');
        return reply.send(answer.body);
      }
      throw new AppError('IDEMPOTENCY_KEY_IN_PROGRESS');
    });

    app.addHook('onSend', async (request, reply, payload) => {
      const held = request.idempotency;
      if (!held || held.settled) return payload;
      if (held.replayedByService) reply.header(REPLAYED_HEADER, 'true');
      const status = reply.statusCode;
      const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
      if (status >= 500 || body === null) {
        await settle(request, null);
        return payload;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value === undefined || NOT_REPLAYED.has(name.toLowerCase())) continue;
        headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
      }
      await settle(request, { status, headers, body });
      return payload;
    });

    // A request that ended without passing onSend (a hijacked reply) releases its key. An aborted client
    // does not: the handler may still create the resource, and its answer is stored for the retry.
    app.addHook('onResponse', async (request) => settle(request, null));
  },
  { name: 'idempotency', dependencies: ['errors', 'auth'] },
);
