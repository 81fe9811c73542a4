/**
 * One logger for every process: pino, JSON lines, secrets redacted, and the current request id added to
 * every line written while a request is being handled (AsyncLocalStorage), so a request can be followed
 * from the gateway into each service it calls.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger };

export interface RequestContext {
  requestId: string;
}

const requestContext = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `requestId` attached to every log line written inside it (across awaits). */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return requestContext.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

/** Header carrying the request id between processes. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** Accepts a caller's request id only when it is short and plain, so log lines cannot be forged. */
export function sanitizeRequestId(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : undefined;
}

// Paths that may carry credentials in anything we log (request headers, RPC metadata, config dumps).
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.password',
  '*.secret',
  '*.token',
  '*.INTERNAL_AUTH_TOKEN',
  '*.SECRETS_KEY',
  '*.DATABASE_URL',
];

export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info', options: LoggerOptions = {}): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    mixin() {
      const store = requestContext.getStore();
      return store ? { reqId: store.requestId } : {};
    },
    ...options,
  });
}
