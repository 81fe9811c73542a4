/**
 * The retry policy of the spec's client rules (public API §7): retry only 429, 5xx and network failures, with
 * exponential backoff from 1 s capped at 30 s with jitter, honouring `Retry-After` (and `RateLimit-Reset` on a
 * 429); never a 400, 401, 403, 404 or any other 4xx. POST requests carry an `Idempotency-Key` (a random UUID,
 * the same one on every attempt of the call) so that a retried create never creates twice.
 */

/** The fetch function the client calls (the global one by default). */
export type FetchLike = (input: Request, init?: RequestInit) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt (so at most `maxRetries + 1` requests per call). Default 3; 0 turns retries off. */
  maxRetries?: number;
  /** First backoff in ms. Default 1000 (spec: "from 1 second"). */
  initialDelayMs?: number;
  /** Largest backoff in ms. Default 30000 (spec: "capped at 30 seconds"). */
  maxDelayMs?: number;
  /**
   * A `Retry-After` / `RateLimit-Reset` asking for a longer wait than this (ms) is not waited for: the answer is
   * returned as it is, for the caller to decide. Default 60000 (the API's rate-limit windows are 60 s).
   */
  maxRetryAfterMs?: number;
  /** Adds `Idempotency-Key` to POST requests that have none. Default true. */
  idempotencyKeys?: boolean;
  /** Waits `ms` milliseconds (tests inject a recorder). Default: a timer that the request's AbortSignal cancels. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random number in [0, 1) for the jitter. Default Math.random. */
  random?: () => number;
  /** The clock in ms since the epoch, for a `Retry-After` given as an HTTP date. Default Date.now. */
  now?: () => number;
  /** Called before each wait: which attempt failed, why, and how long the client waits. */
  onRetry?: (info: RetryInfo) => void;
  /** Makes the idempotency keys (tests). Default crypto.randomUUID. */
  idempotencyKey?: () => string;
}

export interface RetryInfo {
  request: Request;
  /** 1 for the first attempt. */
  attempt: number;
  /** The answer that is retried, or undefined after a network failure. */
  response?: Response;
  error?: unknown;
  delayMs: number;
}

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_INITIAL_DELAY_MS = 1000;
export const DEFAULT_MAX_DELAY_MS = 30_000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;

/** 429 and every 5xx: the only answers that may get better by asking again. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * The backoff before retry number `retry` (0 for the first retry): a random time between half and all of
 * min(maxDelay, initialDelay × 2^retry), and never less than initialDelay. So 1 s, then 1–2 s, 2–4 s, 4–8 s,
 * 8–16 s, then 15–30 s.
 */
export function backoffDelay(
  retry: number,
  random: () => number = Math.random,
  initialDelayMs = DEFAULT_INITIAL_DELAY_MS,
  maxDelayMs = DEFAULT_MAX_DELAY_MS,
): number {
  const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** retry);
  const jittered = ceiling / 2 + (random() * ceiling) / 2;
  return Math.round(Math.min(maxDelayMs, Math.max(initialDelayMs, jittered)));
}

/**
 * The wait the server asks for, in ms, or undefined: `Retry-After` (seconds or an HTTP date) on any retryable
 * answer; on a 429 without it, `RateLimit-Reset` (seconds until the window resets). Every authenticated answer
 * carries `RateLimit-Reset`, so it is not read on a 5xx.
 */
export function serverDelay(response: Response, now: () => number = Date.now): number | undefined {
  const retryAfter = response.headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.ceil(Number(retryAfter) * 1000);
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, at - now());
  }
  if (response.status === 429) {
    const reset = response.headers.get('ratelimit-reset')?.trim();
    if (reset && /^\d+(\.\d+)?$/.test(reset)) return Math.ceil(Number(reset) * 1000);
  }
  return undefined;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function randomKey(): string {
  return globalThis.crypto.randomUUID();
}

/** Wraps `fetch` with the retry policy and the automatic idempotency keys. */
export function retryingFetch(fetchImpl: FetchLike, options: RetryOptions = {}): FetchLike {
  const maxRetries = Math.max(0, Math.floor(options.maxRetries ?? DEFAULT_MAX_RETRIES));
  const initialDelayMs = options.initialDelayMs ?? DEFAULT_INITIAL_DELAY_MS;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const newKey = options.idempotencyKey ?? randomKey;

  return async (input, init) => {
    let request = input;
    if (options.idempotencyKeys !== false && request.method === 'POST' && !request.headers.has(IDEMPOTENCY_HEADER)) {
      // One key per call, made before the first attempt: every retry below sends the same one.
      const headers = new Headers(request.headers);
      headers.set(IDEMPOTENCY_HEADER, newKey());
      request = new Request(request, { headers });
    }
    for (let attempt = 1; ; attempt++) {
      const last = attempt > maxRetries;
      // The body of a Request can be read once: every attempt but the last sends a copy.
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await fetchImpl(sent, init);
      } catch (error) {
        if (last || request.signal?.aborted || !isNetworkError(error)) throw error;
        const delayMs = backoffDelay(attempt - 1, random, initialDelayMs, maxDelayMs);
        options.onRetry?.({ request, attempt, error, delayMs });
        await sleep(delayMs, request.signal);
        continue;
      }
      if (last || !isRetryableStatus(response.status)) return response;
      const asked = serverDelay(response, now);
      if (asked !== undefined && asked > maxRetryAfterMs) return response;
      const delayMs = asked ?? backoffDelay(attempt - 1, random, initialDelayMs, maxDelayMs);
      options.onRetry?.({ request, attempt, response, delayMs });
      // Let go of the answer we will not read, so its connection can be reused.
      await response.body?.cancel().catch(() => undefined);
      await sleep(delayMs, request.signal);
    }
  };
}

/**
 * fetch's own failures (connection refused or reset, DNS): a TypeError; an abort or a timeout is the caller's.
 * Read by name, not instanceof: the fetch may come from another realm (a test sandbox, an iframe).
 */
function isNetworkError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const name = (error as { name?: unknown }).name;
  if (name === 'AbortError' || name === 'TimeoutError') return false;
  const code = (error as { code?: unknown }).code;
  // Other fetch implementations throw their own class with the system error's code (ECONNRESET, UND_ERR_SOCKET).
  return name === 'TypeError' || (typeof code === 'string' && /^(E(?!RR_)[A-Z0-9]+|UND_ERR_[A-Z_]+)$/.test(code));
}
