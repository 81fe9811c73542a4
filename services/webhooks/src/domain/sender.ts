/**
 * One delivery attempt over HTTP (spec §6): POST the stored body with the signature, event and delivery
 * headers; any 2xx is a success; redirects are not followed (a 3xx is a failed attempt recorded with its
 * code); the response body is not read (at most 64 KiB are drained so the connection can be reused, the rest
 * is dropped); the whole attempt, connection included, is bounded by `timeoutMs`.
 *
 * undici does the HTTP; the SSRF guard sits in its connector (`guardedLookup`) and in front of IP-literal
 * hosts, unless private targets are allowed (local receivers in tests and on a laptop).
 */
import { Agent, request } from 'undici';
import { signatureHeader } from '@assay/webhook-verify';
import { WEBHOOK_HEADERS } from '@assay/contracts/webhooks/values';
import { guardedLookup, NOT_A_PUBLIC_TARGET, refusedLiteral, TargetRefusedError } from './ssrf';

export const RESPONSE_DRAIN_LIMIT = 64 * 1024;
export const USER_AGENT = 'Assay-Webhooks/1.0';

export interface AttemptInput {
  url: string;
  secret: string;
  body: string;
  event: string;
  deliveryId: string;
  /** Unix seconds for the signature. */
  timestamp: number;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  responseMs: number | null;
  error: string | null;
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivateTargets: boolean;
  /** Connections kept per origin. */
  connections?: number;
}

function describeError(err: unknown, timeoutMs: number): string {
  if (err instanceof TargetRefusedError) return err.message;
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string; message?: string }; message?: string };
  if (e?.cause instanceof TargetRefusedError) return e.cause.message;
  const code = e?.code ?? e?.cause?.code;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return `timeout: no response within ${timeoutMs} ms`;
  switch (code) {
    case 'ETARGETREFUSED':
      return (e.cause?.message ?? e.message) as string;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      // The same words as a refused target: the history must not tell which internal names exist.
      return NOT_A_PUBLIC_TARGET;
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `TLS error: ${code}`;
    default:
      return `request failed${code ? `: ${code}` : ''}`;
  }
}

/**
 * The HTTP agent's settings: a pool of keep-alive connections per origin, the SSRF guard as the connections'
 * DNS lookup, every phase bounded by the attempt's timeout.
 *
 * A receiver's `Keep-Alive: timeout=<s>` hint bounds how long an idle connection is kept; undici keeps it for the
 * hint minus `keepAliveTimeoutThreshold`, 2 s by default, so a receiver hinting 2 s (Node's http server with
 * `keepAliveTimeout = 2000`, like the test receivers) had every connection closed after one request: a new TCP
 * (and TLS) connection per delivery, most of the sender's CPU in the webhook-fanout profile. 1 s is the margin
 * Node's own http.Agent keeps (`agentKeepAliveTimeoutBuffer`); idle timeouts up to 1 s run on precise timers.
 */
export function agentOptions(opts: SenderOptions): Agent.Options {
  return {
    connections: opts.connections ?? 16,
    connect: opts.allowPrivateTargets ? { timeout: opts.timeoutMs } : { timeout: opts.timeoutMs, lookup: guardedLookup },
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
    keepAliveTimeout: 4000,
    keepAliveTimeoutThreshold: 1000,
  };
}

export class Sender {
  readonly #agent: Agent;

  constructor(private readonly opts: SenderOptions) {
    this.#agent = new Agent(agentOptions(opts));
  }

  async attempt(input: AttemptInput): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let target: URL;
    try {
      target = new URL(input.url);
    } catch {
      return { ok: false, statusCode: null, responseMs: null, error: 'invalid url' };
    }
    if (!this.opts.allowPrivateTargets) {
      const range = refusedLiteral(target.hostname);
      if (range) return { ok: false, statusCode: null, responseMs: null, error: NOT_A_PUBLIC_TARGET };
    }
    try {
      const res = await request(target, {
        method: 'POST',
        dispatcher: this.#agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          [WEBHOOK_HEADERS.signature]: signatureHeader(input.secret, input.timestamp, input.body),
          [WEBHOOK_HEADERS.event]: input.event,
          [WEBHOOK_HEADERS.delivery]: input.deliveryId,
        },
        body: input.body,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      const responseMs = elapsed();
      // Not read: drained up to the cap in the background, so the connection can be reused.
      res.body.dump({ limit: RESPONSE_DRAIN_LIMIT }).catch(() => undefined);
      const code = res.statusCode;
      if (code >= 200 && code < 300) return { ok: true, statusCode: code, responseMs, error: null };
      const error = code >= 300 && code < 400 ? `redirect not followed (HTTP ${code})` : `HTTP ${code}`;
      return { ok: false, statusCode: code, responseMs, error };
    } catch (err) {
      return { ok: false, statusCode: null, responseMs: null, error: describeError(err, this.opts.timeoutMs) };
    }
  }

  async close(): Promise<void> {
    await this.#agent.close().catch(() => undefined);
  }
}
