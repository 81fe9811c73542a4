/**
 * One error type per layer and ONE table. A service throws `AppError(reason)`; the service kit turns it into
 * a ConnectError (code from the table, reason and field violations in an ErrorInfo detail); the gateway turns
 * that back into an AppError and answers with the table's HTTP status and `error.code = reason`.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { ErrorInfoSchema, type FieldViolation } from '@assay/proto/assay/common/v1/common_pb';

export const Reasons = [
  'VALIDATION_ERROR',
  'INVALID_LIMIT',
  'UNAUTHORIZED',
  'TOKEN_REVOKED',
  'TOKEN_EXPIRED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'IDEMPOTENCY_KEY_IN_PROGRESS',
  'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RANGE_NOT_SATISFIABLE',
  'IDEMPOTENCY_KEY_REUSE',
  'HEADERS_TOO_LARGE',
  'RATE_LIMIT_EXCEEDED',
  'QUOTA_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;
export type Reason = (typeof Reasons)[number];

interface ReasonRow {
  http: number;
  connect: Code;
  /** Default human message; messages may change, codes never do. */
  message: string;
}

/** The one table: reason → HTTP status, Connect code, default message. */
export const ERROR_TABLE: Record<Reason, ReasonRow> = {
  VALIDATION_ERROR: { http: 400, connect: Code.InvalidArgument, message: 'The request is invalid' },
  INVALID_LIMIT: { http: 400, connect: Code.InvalidArgument, message: 'limit must be one of the allowed page sizes' },
  UNAUTHORIZED: { http: 401, connect: Code.Unauthenticated, message: 'Invalid or unknown user token' },
  TOKEN_REVOKED: { http: 401, connect: Code.Unauthenticated, message: 'The token has been revoked' },
  TOKEN_EXPIRED: { http: 401, connect: Code.Unauthenticated, message: 'The token has expired' },
  FORBIDDEN: { http: 403, connect: Code.PermissionDenied, message: 'Your role does not allow this operation' },
  NOT_FOUND: { http: 404, connect: Code.NotFound, message: 'Resource not found or not accessible' },
  METHOD_NOT_ALLOWED: { http: 405, connect: Code.Unimplemented, message: 'Method not allowed on this path' },
  CONFLICT: { http: 409, connect: Code.FailedPrecondition, message: 'The resource is in a state that forbids this change' },
  IDEMPOTENCY_KEY_IN_PROGRESS: { http: 409, connect: Code.Aborted, message: 'A request with this Idempotency-Key is still in progress' },
  REQUEST_TIMEOUT: { http: 408, connect: Code.DeadlineExceeded, message: 'The request was not received in time' },
  PAYLOAD_TOO_LARGE: { http: 413, connect: Code.ResourceExhausted, message: 'Request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, connect: Code.InvalidArgument, message: 'Unsupported Content-Type' },
  RANGE_NOT_SATISFIABLE: { http: 416, connect: Code.OutOfRange, message: 'The requested byte range is outside the file' },
  IDEMPOTENCY_KEY_REUSE: {
    http: 422,
    connect: Code.FailedPrecondition,
    message: 'This Idempotency-Key was used with a different request body',
  },
  HEADERS_TOO_LARGE: { http: 431, connect: Code.InvalidArgument, message: 'The request headers are too large' },
  RATE_LIMIT_EXCEEDED: { http: 429, connect: Code.ResourceExhausted, message: 'Too many requests' },
  QUOTA_LIMIT_EXCEEDED: {
    http: 429,
    connect: Code.ResourceExhausted,
    message: 'The plan quota of test results for this period is used up',
  },
  INTERNAL_ERROR: { http: 500, connect: Code.Internal, message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { http: 503, connect: Code.Unavailable, message: 'A service is temporarily unavailable; retry later' },
};

export interface Violation {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly reason: Reason;
  readonly details?: Violation[];
  /** Extra response headers (e.g. Retry-After, Allow). */
  readonly headers?: Record<string, string>;

  constructor(
    reason: Reason,
    message?: string,
    options: { details?: Violation[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message ?? ERROR_TABLE[reason].message, { cause: options.cause });
    this.name = 'AppError';
    this.reason = reason;
    this.details = options.details;
    this.headers = options.headers;
  }

  get httpStatus(): number {
    return ERROR_TABLE[this.reason].http;
  }
}

// Convenience constructors for the common cases.
export const notFound = (what = 'Resource') => new AppError('NOT_FOUND', `${what} not found or not accessible`);
export const validation = (message: string, details?: Violation[]) =>
  new AppError('VALIDATION_ERROR', message, { details: details ?? [{ path: '', message }] });
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const forbidden = (message?: string) => new AppError('FORBIDDEN', message);

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/**
 * What an error may carry across RPC: its message and field violations travel in HTTP/2 trailers, and trailers
 * over the peer's header-list limit (64 KiB in Node) reset the stream, which the caller would see as a 500
 * instead of the error. A body with thousands of invalid fields, or one that echoes a huge value, stays a 400.
 */
export const MAX_VIOLATIONS = 100;
export const MAX_ERROR_TEXT = 1000;

const bounded = (s: string) => (s.length > MAX_ERROR_TEXT ? `${s.slice(0, MAX_ERROR_TEXT - 1)}…` : s);

function boundedViolations(details: Violation[]): FieldViolation[] {
  const kept = details.slice(0, MAX_VIOLATIONS).map((d) => ({ path: bounded(d.path), message: bounded(d.message) }) as FieldViolation);
  if (details.length > MAX_VIOLATIONS)
    kept.push({ path: '', message: `${details.length - MAX_VIOLATIONS} more problems not listed` } as FieldViolation);
  return kept;
}

/** Service side: any thrown value → ConnectError. Unknown errors become INTERNAL_ERROR with no detail leaked. */
export function toConnectError(err: unknown): ConnectError {
  if (err instanceof AppError) {
    const row = ERROR_TABLE[err.reason];
    const info = create(ErrorInfoSchema, { reason: err.reason, violations: boundedViolations(err.details ?? []) });
    return new ConnectError(bounded(err.message), row.connect, undefined, [{ desc: ErrorInfoSchema, value: info }]);
  }
  // Already a ConnectError (from a downstream call or an interceptor): it carries its own code and reason.
  if (err instanceof ConnectError) return err;
  return new ConnectError(ERROR_TABLE.INTERNAL_ERROR.message, Code.Internal, undefined, [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: 'INTERNAL_ERROR' }) },
  ]);
}

const CODE_FALLBACK: Partial<Record<Code, Reason>> = {
  [Code.InvalidArgument]: 'VALIDATION_ERROR',
  [Code.NotFound]: 'NOT_FOUND',
  [Code.PermissionDenied]: 'FORBIDDEN',
  [Code.FailedPrecondition]: 'CONFLICT',
  [Code.Unavailable]: 'SERVICE_UNAVAILABLE',
  [Code.DeadlineExceeded]: 'SERVICE_UNAVAILABLE',
  // A connection the service tore down mid-call (it died: ECONNRESET), which the client reports as aborted; a
  // service's own errors carry their reason and never come here.
  [Code.Aborted]: 'SERVICE_UNAVAILABLE',
  [Code.ResourceExhausted]: 'RATE_LIMIT_EXCEEDED',
};

/** Caller side (gateway, CLI, other services): ConnectError → AppError with the service's reason. */
export function fromConnectError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const ce = ConnectError.from(err);
  const [info] = ce.findDetails(ErrorInfoSchema);
  const reason = (info && (Reasons as readonly string[]).includes(info.reason) ? info.reason : CODE_FALLBACK[ce.code]) as
    Reason | undefined;
  if (!reason || reason === 'INTERNAL_ERROR') return new AppError('INTERNAL_ERROR', undefined, { cause: err });
  if (reason === 'SERVICE_UNAVAILABLE' && !info) {
    // Transport failure: never echo its message (it names hosts and ports).
    return new AppError('SERVICE_UNAVAILABLE', undefined, { cause: err, headers: { 'Retry-After': '5' } });
  }
  return new AppError(reason, ce.rawMessage, {
    cause: err,
    details: info?.violations.length ? info.violations.map((v) => ({ path: v.path, message: v.message })) : undefined,
    headers: reason === 'SERVICE_UNAVAILABLE' ? { 'Retry-After': '5' } : undefined,
  });
}

/** The public error envelope (spec §2.1). */
export interface ErrorEnvelope {
  success: false;
  error: { code: Reason; message: string; details?: Violation[] };
}

export function toEnvelope(err: AppError): ErrorEnvelope {
  const error: ErrorEnvelope['error'] = {
    code: err.reason,
    message: err.reason === 'INTERNAL_ERROR' ? ERROR_TABLE.INTERNAL_ERROR.message : err.message,
  };
  if (err.details && err.details.length > 0) error.details = err.details;
  return { success: false, error };
}
