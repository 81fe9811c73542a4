/** The error envelope of every failed answer (spec §2.1): `{success: false, error: {code, message, details?}}`. */
export interface ErrorBody {
  success: false;
  error: { code: string; message: string; details?: unknown };
}

/** Thrown by the helpers that unwrap answers (the page iterators); the typed client itself returns `{error}`. */
export class AssayApiError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** `error.code` of the envelope (stable, safe to branch on), or `HTTP_<status>` for an answer without one. */
  readonly code: string;
  readonly details: unknown;
  /** The gateway's `X-Request-Id`, to quote when asking for help. */
  readonly requestId: string | undefined;
  readonly body: unknown;

  constructor(response: Response, body: unknown) {
    const envelope = isErrorBody(body) ? body.error : undefined;
    super(envelope?.message ?? `HTTP ${response.status} ${response.statusText}`.trim());
    this.name = 'AssayApiError';
    this.status = response.status;
    this.code = envelope?.code ?? `HTTP_${response.status}`;
    this.details = envelope?.details;
    this.requestId = response.headers.get('x-request-id') ?? undefined;
    this.body = body;
  }
}

export function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null) return false;
  const error = (body as { error?: unknown }).error;
  return (body as { success?: unknown }).success === false && typeof error === 'object' && error !== null;
}
