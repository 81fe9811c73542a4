/** Where Assay is and who we are: reporter options first, then the environment (ASSAY_URL, ASSAY_TOKEN, ASSAY_PROJECT_ID). */
import { createAssayClient, type AssayClient } from '@assay/client';

export interface Connection {
  /** The Assay gateway, e.g. `https://assay.example.com`. Default: ASSAY_URL. */
  url?: string;
  /** A project API key or a writer's personal access token (`svc_pat_…`). Default: ASSAY_TOKEN. */
  token?: string;
  /**
   * The project to report into. Default: ASSAY_PROJECT_ID, else the project of the token when it covers exactly
   * one (a project API key always does), as `GET /api/v1/public/token-info` answers it.
   */
  projectId?: string;
  /** Retries of each call after a network failure, a 429 or a 5xx (the client's backoff: 1 s, 2 s, 4 s …). Default 3. */
  maxRetries?: number;
  /** Time limit of one request (ms). Default 30000. */
  requestTimeoutMs?: number;
}

export interface ResolvedConnection {
  url: string;
  token: string;
  projectId?: string;
  maxRetries: number;
  requestTimeoutMs: number;
}

/** The connection, or why there is none (nothing to report to is not an error: the run goes on). */
export function resolveConnection(
  o: Connection,
  env: Record<string, string | undefined> = process.env,
): ResolvedConnection | { missing: string } {
  const url = (o.url ?? env.ASSAY_URL ?? '').trim().replace(/\/+$/, '');
  const token = (o.token ?? env.ASSAY_TOKEN ?? '').trim();
  if (!url) return { missing: 'no Assay URL (reporter option `url` or ASSAY_URL)' };
  if (!token) return { missing: 'no Assay token (reporter option `token` or ASSAY_TOKEN)' };
  const projectId = (o.projectId ?? env.ASSAY_PROJECT_ID ?? '').trim() || undefined;
  return { url, token, projectId, maxRetries: o.maxRetries ?? 3, requestTimeoutMs: o.requestTimeoutMs ?? 30_000 };
}

export function clientFor(c: ResolvedConnection, onRetry?: (why: string) => void): AssayClient {
  return createAssayClient({
    baseUrl: c.url,
    token: c.token,
    maxRetries: c.maxRetries,
    onRetry: onRetry
      ? (info) => onRetry(info.response ? `HTTP ${info.response.status}` : String((info.error as Error)?.message ?? info.error))
      : undefined,
  });
}

/** The project id: given, or the token's single project. */
export async function projectIdOf(client: AssayClient, c: ResolvedConnection): Promise<string> {
  if (c.projectId) return c.projectId;
  const { data, error, response } = await client.GET('/api/v1/public/token-info', { signal: AbortSignal.timeout(c.requestTimeoutMs) });
  if (error || !data) throw new Error(`token-info answered HTTP ${response.status}${error ? ` ${error.error.code}` : ''}`);
  const id = data.data.project?.id;
  if (!id) throw new Error('the token covers more than one project: set the reporter option `projectId` or ASSAY_PROJECT_ID');
  return id;
}

/** A message for whatever a call threw (fetch's TypeError hides the cause: connection refused, DNS …). */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${err.message} (${cause.code})` : cause?.message ? `${err.message} (${cause.message})` : err.message;
}
