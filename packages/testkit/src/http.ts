/** A small HTTP client for tests: real requests to the gateway, parsed envelopes. */
import { Agent, fetch } from 'undici';

export const PUBLIC_PREFIX = '/api/v1/public';

/**
 * Idle connections are closed after 10 s whatever the server's `Keep-Alive: timeout` hint (Fastify's 72 s). With the
 * hint a connection idle for about 70 s could be reused just as the gateway closed it, and a POST then failed with
 * "other side closed" (undici does not resend a POST): a jest worker busy in between (a suite without HTTP, the next
 * suite's compilation) delays the client's own expiry past the server's.
 */
const agent = new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 10_000 });

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is (no JSON encoding). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Authorization header value to send instead of `Bearer <token>`; null sends none. */
  authorization?: string | null;
}

export class Api {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
    readonly prefix: string = PUBLIC_PREFIX,
  ) {}

  withToken(token: string): Api {
    return new Api(this.baseUrl, token, this.prefix);
  }

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    const auth = opts.authorization === undefined ? (this.token ? `Bearer ${this.token}` : undefined) : opts.authorization;
    if (auth) headers.authorization = auth;
    let body: string | Buffer | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const url = path.startsWith('http')
      ? path
      : `${this.baseUrl}${path.startsWith('/api/') || path.startsWith('/docs') || path.startsWith('/healthz') || path.startsWith('/readyz') ? '' : this.prefix}${path}`;
    const res = await fetch(url, { method, headers, body, dispatcher: agent });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text.length > 0) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('GET', path, opts);
  }
  post<T = any>(path: string, body?: unknown, opts: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...opts, body });
  }
  patch<T = any>(path: string, body?: unknown, opts: RequestOptions = {}) {
    return this.request<T>('PATCH', path, { ...opts, body });
  }
  delete<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('DELETE', path, opts);
  }
}
