/**
 * The client side of internal calls: the Connect protocol's unary call (binary, one POST, one answer) written
 * straight onto a stream of Connect's own HTTP/2 session manager. Streaming methods go through Connect's
 * transport unchanged.
 *
 * Why not Connect's transport for unary calls too: for every call it builds async-iterable pipelines for a body
 * of one chunk, web `Headers` both ways, two linked AbortControllers, and on success aborts them with a
 * `DOMException` and a `ConnectError`, stack traces included (connectrpc/connect-es#1580). Over loopback that was
 * 0.33–0.37 ms of the caller's CPU a call against 0.11 ms for the same request on a bare `node:http2` stream, and
 * 0.39–0.48 ms of latency against 0.09–0.13 (`make bench BENCH=rpc`; issue 19): the largest cost of a read through
 * the gateway that a single process does not pay.
 *
 * What it keeps of Connect: the wire protocol (any Connect server answers it; the service kit's servers also speak
 * gRPC), the session manager (connection reuse, keep-alive pings, reconnecting), the error JSON codec and the
 * HTTP-status mapping, and the error codes Connect's own client gives for timeouts, cancellation, refused
 * connections and reset streams; and gRPC's transparent retry: a stream the server refused unprocessed is sent
 * once more. What it drops: interceptors. The kit's client adds two headers and nothing else
 * (`clients.ts`), so they are plain headers here.
 */
import http2 from 'node:http2';
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethodStreaming,
  type DescMethodUnary,
  type MessageInitShape,
} from '@bufbuild/protobuf';
import { Code, ConnectError, type ContextValues, type StreamResponse, type Transport, type UnaryResponse } from '@connectrpc/connect';
import { createMethodUrl } from '@connectrpc/connect/protocol';
import { codeFromHttpStatus, errorFromJsonBytes, trailerDemux } from '@connectrpc/connect/protocol-connect';
import type { SessionSource } from './replicas';

/** What `CallOptions.headers` may be (the DOM's HeadersInit, which this build's libs do not declare). */
type HeadersInit = ConstructorParameters<typeof Headers>[0];

export interface UnaryTransportOptions {
  baseUrl: string;
  /** Connect's session manager (one connection), or one per replica of the service (`replicas.ts`). */
  sessions: SessionSource;
  /** Adds what every call carries to a call's own headers (lower-cased names). */
  headers: (call: Record<string, string>) => void;
  /** When a call gives none; 0 or less in a call means none. */
  defaultTimeoutMs?: number;
  /** Largest answer accepted, in bytes. */
  readMaxBytes: number;
  /** Connect's transport, for streaming methods. */
  streams: Transport;
}

const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM, NGHTTP2_ENHANCE_YOUR_CALM, NGHTTP2_INADEQUATE_SECURITY, NGHTTP2_HTTP_1_1_REQUIRED } =
  http2.constants;

/**
 * What Connect's Node client answers for a failed stream or connection (connect-node's `connectErrorFromNodeReason`,
 * not exported): a refused or unresolvable peer is UNAVAILABLE, a stream torn down under the call ABORTED, the rest
 * INTERNAL.
 */
export function errorFromNode(reason: unknown): ConnectError {
  if (reason instanceof ConnectError) return reason;
  const codes: string[] = [];
  // Duck-typed: an error of another realm (a vm context) is not `instanceof Error`.
  for (
    let e = reason as { code?: unknown; cause?: unknown } | undefined;
    e && typeof e === 'object' && codes.length < 8;
    e = e.cause as typeof e
  ) {
    const c = (e as { code?: unknown }).code;
    if (typeof c === 'string') codes.push(c);
  }
  let code = Code.Internal;
  if (
    codes.some(
      (c) => c === 'ERR_STREAM_WRITE_AFTER_END' || c === 'ERR_STREAM_DESTROYED' || c === 'ERR_HTTP2_INVALID_STREAM' || c === 'ECONNRESET',
    )
  )
    code = Code.Aborted;
  else if (codes.some((c) => c === 'ETIMEDOUT' || c === 'ENOTFOUND' || c === 'EAI_AGAIN' || c === 'ECONNREFUSED')) code = Code.Unavailable;
  const ce = ConnectError.from(reason, code);
  if (ce !== reason) ce.cause = reason;
  return ce;
}

/** A stream the server reset (connect-node's `connectErrorFromH2ResetCode`); NO_ERROR and STREAM_CLOSED are not errors. */
export function errorFromReset(rstCode: number): ConnectError | undefined {
  const message = `http/2 stream closed with error code 0x${rstCode.toString(16)}`;
  switch (rstCode) {
    case http2.constants.NGHTTP2_NO_ERROR:
    case http2.constants.NGHTTP2_STREAM_CLOSED:
      return undefined;
    case NGHTTP2_REFUSED_STREAM:
      return new ConnectError(message, Code.Unavailable);
    case NGHTTP2_CANCEL:
      return new ConnectError(message, Code.Canceled);
    case NGHTTP2_ENHANCE_YOUR_CALM:
      return new ConnectError(message, Code.ResourceExhausted);
    case NGHTTP2_INADEQUATE_SECURITY:
    case NGHTTP2_HTTP_1_1_REQUIRED:
      return new ConnectError(message, Code.PermissionDenied);
    default:
      return new ConnectError(message, Code.Internal);
  }
}

/** A call's own headers (`CallOptions.headers`), lower-cased. */
function headersOf(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  if (init instanceof Headers || Array.isArray(init)) for (const [k, v] of init as Iterable<[string, string]>) out[k.toLowerCase()] = v;
  else for (const k of Object.keys(init)) out[k.toLowerCase()] = (init as Record<string, string>)[k]!;
  return out;
}

/** HTTP/2 headers (either end's) as web Headers, without the pseudo-headers. */
export function webHeadersOf(raw: http2.IncomingHttpHeaders): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(raw)) if (k[0] !== ':' && v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
  return h;
}

/** Response headers as web Headers, built only when a caller asks (`onHeader` / `onTrailer`). */
function lazyHeaders(raw: http2.IncomingHttpHeaders): () => [Headers, Headers] {
  let both: [Headers, Headers] | undefined;
  return () => (both ??= trailerDemux(webHeadersOf(raw)));
}

export function createUnaryTransport(o: UnaryTransportOptions): Transport {
  const urls = new WeakMap<object, string>();
  const pathOf = (method: DescMethodUnary) => {
    let p = urls.get(method);
    if (p === undefined) urls.set(method, (p = new URL(createMethodUrl(o.baseUrl, method)).pathname));
    return p;
  };

  return {
    unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
    ): Promise<UnaryResponse<I, O>> {
      const timeout = timeoutMs === undefined ? o.defaultTimeoutMs : timeoutMs <= 0 ? undefined : timeoutMs;
      const own = headersOf(header);
      o.headers(own);
      const headers: http2.OutgoingHttpHeaders = {
        ...own,
        ':method': 'POST',
        ':path': pathOf(method),
        'content-type': 'application/proto',
        'connect-protocol-version': '1',
      };
      if (timeout !== undefined) headers['connect-timeout-ms'] = String(timeout);
      let body: Uint8Array;
      try {
        body = toBinary(method.input, create(method.input, input));
      } catch (err) {
        return Promise.reject(ConnectError.from(err, Code.Internal));
      }
      if (signal?.aborted) return Promise.reject(ConnectError.from(signal.reason, Code.Canceled));

      return new Promise<UnaryResponse<I, O>>((resolve, reject) => {
        let stream: http2.ClientHttp2Stream | undefined;
        let settled = false;
        let timer: NodeJS.Timeout | undefined;
        const onAbort = () => fail(ConnectError.from(signal!.reason, Code.Canceled), NGHTTP2_CANCEL);
        const finish = () => {
          settled = true;
          if (timer) clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        };
        // Closes the stream when the call ends before its answer (CANCEL: the peer sees a cancelled call).
        const fail = (err: ConnectError, rstCode = http2.constants.NGHTTP2_INTERNAL_ERROR) => {
          if (settled) return;
          finish();
          if (stream && !stream.closed) stream.close(rstCode);
          reject(err);
        };
        if (timeout !== undefined)
          timer = setTimeout(() => fail(new ConnectError('the operation timed out', Code.DeadlineExceeded), NGHTTP2_CANCEL), timeout);
        signal?.addEventListener('abort', onAbort, { once: true });

        // `mayResend`: a stream the server refused (REFUSED_STREAM, e.g. opened as it sent its GOAWAY while draining)
        // was not processed (RFC 9113 §8.7), so the call is sent once more, on a new stream (another replica's when
        // there are several): gRPC's transparent retry.
        const send = (mayResend: boolean): void => {
          o.sessions.request('POST', pathOf(method), headers, {}).then(
            (s) => {
              if (settled) {
                s.close(NGHTTP2_CANCEL);
                return;
              }
              stream = s;
              let response: http2.IncomingHttpHeaders | undefined;
              let resent = false;
              const resendIfRefused = () => {
                if (resent || settled || !mayResend || response !== undefined || s.rstCode !== NGHTTP2_REFUSED_STREAM) return resent;
                resent = true;
                stream = undefined;
                send(false);
                return true;
              };
              const chunks: Buffer[] = [];
              let size = 0;
              s.on('response', (h) => {
                response = h;
                const length = Number(h['content-length']);
                if (length > o.readMaxBytes)
                  fail(
                    new ConnectError(
                      `message size ${length} is larger than configured readMaxBytes ${o.readMaxBytes}`,
                      Code.ResourceExhausted,
                    ),
                  );
              });
              s.on('data', (chunk: Buffer) => {
                o.sessions.notifyResponseByteRead(s);
                size += chunk.length;
                if (size > o.readMaxBytes)
                  fail(new ConnectError(`message size is larger than configured readMaxBytes ${o.readMaxBytes}`, Code.ResourceExhausted));
                else chunks.push(chunk);
              });
              s.on('end', () => {
                if (settled) return;
                const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
                const status = Number(response?.[':status'] ?? 0);
                const raw = response ?? {};
                const type = String(raw['content-type'] ?? '');
                const encoding = raw['content-encoding'];
                try {
                  if (encoding !== undefined && encoding !== 'identity')
                    throw new ConnectError(`unsupported response encoding "${String(encoding)}"`, Code.Internal);
                  if (status !== 200) {
                    const fallback = new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status));
                    // A Connect error is JSON; anything else (a proxy's page) is known by its status alone.
                    throw /^application\/json/.test(type) ? errorFromJsonBytes(bytes, lazyHeaders(raw)()[0], fallback) : fallback;
                  }
                  if (!/^application\/proto(;|$)/.test(type))
                    throw new ConnectError(`unsupported content type ${type}`, type ? Code.Internal : Code.Unknown);
                  const message = fromBinary(method.output, bytes);
                  const headersOnce = lazyHeaders(raw);
                  finish();
                  resolve({
                    stream: false,
                    service: method.parent,
                    method,
                    get header() {
                      return headersOnce()[0];
                    },
                    get trailer() {
                      return headersOnce()[1];
                    },
                    message,
                  } as UnaryResponse<I, O>);
                } catch (err) {
                  fail(err instanceof ConnectError ? err : ConnectError.from(err, Code.Internal));
                }
              });
              s.on('error', (err: Error & { code?: string }) => {
                if (resendIfRefused()) return;
                // A stream the server reset: its code says what happened (a refused one is UNAVAILABLE, not INTERNAL).
                const reset = err.code === 'ERR_HTTP2_STREAM_ERROR' && s.rstCode ? errorFromReset(s.rstCode) : undefined;
                fail(reset ?? errorFromNode(err));
              });
              s.on('close', () => {
                if (settled || resendIfRefused()) return;
                fail(errorFromReset(s.rstCode ?? 0) ?? new ConnectError('http/2 stream closed before the answer', Code.Internal));
              });
              s.end(body);
            },
            (err: unknown) => fail(errorFromNode(err)),
          );
        };
        send(true);
      });
    },

    stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
      contextValues?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      return o.streams.stream(method, signal, timeoutMs, header, input, contextValues);
    },
  };
}
