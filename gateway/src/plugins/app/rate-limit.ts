/**
 * Rate limits of spec §8 and CONTRACT §6/§9, on Redis with rate-limiter-flexible (fixed 60 s windows that
 * start at a key's first request; one atomic INCR + TTL script per bucket and request, so concurrent gateway
 * replicas share the counters exactly).
 *
 * Two hooks, registered around authentication (app.ts):
 *   - `ipRateLimit` (onRequest, BEFORE auth): every request of a client IP counts in the `ip` bucket, whatever
 *     its outcome (401s and unknown routes included). Its 429 carries `Retry-After` and no `RateLimit-*`
 *     headers (the caller is not authenticated). The count is sent without waiting for it, so that it and
 *     authentication's cache read share one Redis round trip (ioredis pipelines the commands of one event-loop
 *     turn); `enforceIpLimit` applies its answer before anything else does: at the start of `tokenRateLimit`,
 *     and before authentication's refusal (auth.ts). The API calls an MCP tool makes in process for a /mcp request
 *     are not counted again (routes/mcp.ts). The client IP is the socket address, or the X-Forwarded-For
 *     entry added by the last of TRUSTED_PROXY_HOPS trusted proxies (Fastify `trustProxy`, see app.ts).
 *   - `tokenRateLimit` (onRequest, AFTER auth): an authenticated request counts once in each of its buckets,
 *     keyed by the token (its secret's hash; a web app session by its user): `reads` (GET/HEAD) or `writes` (other
 *     methods), plus the route's extra bucket (`config.rateBucket`: `manualRunCreate`, `pdf`). Ingestion routes
 *     (`rateBucket: 'ingest'`) count in the `ingest` bucket INSTEAD of reads/writes. The answer (success or error)
 *     carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds) of the most constraining
 *     bucket: the one with the fewest requests left (ties: the later reset). Over any bucket → 429
 *     RATE_LIMIT_EXCEEDED with `Retry-After` (whole seconds until the exhausted bucket resets) and
 *     `RateLimit-Remaining: 0`.
 *     A bearer token's counts go out with the per-IP one (`request.tokenCount`), keyed by the hash of the secret
 *     the header holds: the key needs no Redis read, so an authenticated request makes one Redis round trip, not
 *     two. This hook applies them once authentication has accepted that token; a request it refuses (401) counted
 *     in its secret's buckets, which only that secret's holder could use.
 * Requests over a limit still count (a fixed-window counter); the window is never extended by them.
 *
 * Redis unreachable → 503 SERVICE_UNAVAILABLE with `Retry-After`: traffic is never let through unlimited.
 */
import fp from 'fastify-plugin';
import ipaddr from 'ipaddr.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '@assay/errors';
import type { RateLimits } from '../../config';
import { isMcpToolCall } from '../../routes/mcp';
import { secretRateKey } from '../../auth/authenticator';
import { bearerSecretHashOf, credentialOf } from '../../auth/credential';

export const RATE_WINDOW_SECONDS = 60;
export type Bucket = keyof RateLimits;

declare module 'fastify' {
  interface FastifyRequest {
    /** The per-IP count in flight: resolves to its refusal (429, or 503 when Redis failed), or undefined. */
    ipLimit?: Promise<AppError | undefined>;
    /** The bearer token's counts, sent with the per-IP one: their key, and their states or the error (503). */
    tokenCount?: { key: string; counted: Promise<BucketState[] | AppError> };
  }
  interface FastifyContextConfig {
    /**
     * `false`: not rate-limited at all (health probes only). `'ip'`: the per-IP limit only, not the token's buckets
     * (/mcp, whose tools' API calls count in the token's buckets themselves).
     */
    rateLimit?: false | 'ip';
  }
}

export interface BucketState {
  bucket: Bucket;
  limit: number;
  remaining: number;
  /** Whole seconds until the bucket's window resets (0–60). */
  resetSeconds: number;
  exceeded: boolean;
}

const REDIS_DOWN_RETRY_AFTER = '5';

export class RateLimitPolicy {
  private readonly limiters: Record<Bucket, RateLimiterRedis>;

  constructor(
    redis: Redis,
    readonly limits: RateLimits,
    keyPrefix = 'assay:rl',
  ) {
    const make = (bucket: Bucket) =>
      new RateLimiterRedis({
        storeClient: redis,
        points: limits[bucket],
        duration: RATE_WINDOW_SECONDS,
        keyPrefix: `${keyPrefix}:${bucket}`,
        // Fail fast while the connection is down instead of queueing (the client has no offline queue either).
        rejectIfRedisNotReady: true,
      });
    this.limiters = Object.fromEntries((Object.keys(limits) as Bucket[]).map((b) => [b, make(b)])) as Record<Bucket, RateLimiterRedis>;
  }

  /** Counts one request in `bucket` for `key`. Redis failure → 503 SERVICE_UNAVAILABLE. */
  async consume(bucket: Bucket, key: string): Promise<BucketState> {
    const limit = this.limits[bucket];
    const state = (res: RateLimiterRes, exceeded: boolean): BucketState => ({
      bucket,
      limit,
      remaining: Math.max(0, res.remainingPoints),
      resetSeconds: Math.min(RATE_WINDOW_SECONDS, Math.max(0, Math.ceil(res.msBeforeNext / 1000))),
      exceeded,
    });
    try {
      return state(await this.limiters[bucket].consume(key, 1), false);
    } catch (err) {
      if (err instanceof RateLimiterRes) return state(err, true);
      throw new AppError('SERVICE_UNAVAILABLE', 'Rate limiting is temporarily unavailable; retry later', {
        cause: err,
        headers: { 'Retry-After': REDIS_DOWN_RETRY_AFTER },
      });
    }
  }
}

/** The token buckets a request counts in (see the header comment). */
export function bucketsOf(method: string, rateBucket: FastifyRequest['routeOptions']['config']['rateBucket']): Bucket[] {
  if (rateBucket === 'ingest') return ['ingest'];
  const base: Bucket = method === 'GET' || method === 'HEAD' ? 'reads' : 'writes';
  return rateBucket ? [base, rateBucket] : [base];
}

/** The bucket to report: fewest requests left; on a tie, the one that resets last. */
export function mostConstraining(states: BucketState[]): BucketState {
  return states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a));
}

/**
 * The per-IP limit's key for a client address: an IPv4 address itself (`::ffff:1.2.3.4` → `1.2.3.4`, one client
 * one key whatever the socket family), an IPv6 address by its /64 — one subscriber usually holds a whole /64,
 * and keying on full addresses would let it rotate through 2^64 keys.
 */
export function clientIp(request: FastifyRequest): string {
  const raw = request.ip ?? request.socket.remoteAddress ?? 'unknown';
  if (!ipaddr.isValid(raw)) return raw;
  let addr = ipaddr.parse(raw);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  if (addr.kind() === 'ipv4') return addr.toString();
  return `${(addr as ipaddr.IPv6).toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

const retryAfter = (seconds: number) => String(Math.max(1, seconds));

function tooMany(message: string, retryAfterSeconds: number): AppError {
  return new AppError('RATE_LIMIT_EXCEEDED', message, { headers: { 'Retry-After': retryAfter(retryAfterSeconds) } });
}

function setRateLimitHeaders(reply: FastifyReply, s: BucketState): void {
  reply.header('RateLimit-Limit', String(s.limit));
  reply.header('RateLimit-Remaining', String(s.remaining));
  reply.header('RateLimit-Reset', String(s.resetSeconds));
}

/** What the per-IP limit counts: the API (spec §8), not the web app's pages and assets or the docs. */
const LIMITED = /^\/(api|mcp)(\/|$)/;

/** Per-IP limit, before authentication. Register before the auth plugin. */
export const ipRateLimit = fp(
  async function ipRateLimitPlugin(app: FastifyInstance, opts: { policy: RateLimitPolicy }) {
    app.decorateRequest('ipLimit', undefined);
    // Callback style, done at once: the next hooks (authentication) run in this same turn, so their Redis
    // command goes out with this one.
    app.addHook('onRequest', (request, _reply, done) => {
      if (request.routeOptions.config.rateLimit === false || !LIMITED.test(request.url)) return done();
      // An MCP tool's API call: its /mcp request already counted for this address (routes/mcp.ts).
      if (isMcpToolCall(request)) return done();
      request.ipLimit = opts.policy
        .consume('ip', clientIp(request))
        .then((s) => (s.exceeded ? tooMany('Too many requests from this address', s.resetSeconds) : undefined), asAppError);
      const hash = countsBearerToken(request) ? bearerSecretHashOf(request) : undefined;
      const key = hash ? secretRateKey(hash) : undefined;
      if (key) request.tokenCount = { key, counted: countIn(opts.policy, request, key).catch(asAppError) };
      done();
    });
  },
  { name: 'ip-rate-limit', dependencies: ['errors'] },
);

const asAppError = (err: unknown) => (err instanceof AppError ? err : new AppError('INTERNAL_ERROR', undefined, { cause: err }));

/** Counts one request in each of its token buckets (`bucketsOf`) for `key`. */
const countIn = (policy: RateLimitPolicy, request: FastifyRequest, key: string) =>
  Promise.all(bucketsOf(request.method, request.routeOptions.config.rateBucket).map((b) => policy.consume(b, key)));

/** Whether authentication will take the request's Authorization header as a bearer token, and `tokenRateLimit` count it. */
function countsBearerToken(request: FastifyRequest): boolean {
  return (
    credentialOf(request) === 'bearer' && request.headers.authorization !== undefined && request.routeOptions.config.rateLimit !== 'ip'
  );
}

/** Applies the request's per-IP count (sent by `ipRateLimit`): throws its 429 or 503. Once per request. */
export async function enforceIpLimit(request: FastifyRequest): Promise<void> {
  const pending = request.ipLimit;
  if (!pending) return;
  request.ipLimit = undefined;
  const refusal = await pending;
  if (refusal) throw refusal;
}

/** Per-token limits, after authentication. Register after the auth plugin. */
export const tokenRateLimit = fp(
  async function tokenRateLimitPlugin(app: FastifyInstance, opts: { policy: RateLimitPolicy }) {
    app.addHook('onRequest', async (request, reply) => {
      await enforceIpLimit(request);
      const auth = request.auth;
      const config = request.routeOptions.config.rateLimit;
      if (!auth || config === false || config === 'ip') return;
      const early = request.tokenCount;
      request.tokenCount = undefined;
      const states = early?.key === auth.rateKey ? await early.counted : await countIn(opts.policy, request, auth.rateKey);
      if (states instanceof AppError) throw states;
      const exceeded = states.filter((s) => s.exceeded);
      if (exceeded.length > 0) {
        const worst = exceeded.reduce((a, b) => (b.resetSeconds > a.resetSeconds ? b : a));
        setRateLimitHeaders(reply, { ...worst, remaining: 0 });
        throw tooMany(`Too many requests: the ${worst.bucket} limit of ${worst.limit} per minute is used up`, worst.resetSeconds);
      }
      setRateLimitHeaders(reply, mostConstraining(states));
    });
  },
  { name: 'token-rate-limit', dependencies: ['errors', 'auth'] },
);
