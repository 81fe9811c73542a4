/**
 * The server side of internal calls: a unary call of the Connect protocol in binary (POST, `application/proto`, not
 * compressed; what `createRpcClient` sends) is answered here, through the same interceptors and the same service
 * implementations as Connect's handler. Anything else (the gRPC health probes, JSON, GET, streaming, compressed
 * bodies, unknown paths) goes on to Connect's adapter, which answers it as before.
 *
 * Why: Connect's handler runs every unary call through its streaming machinery: async iterables to read a body of
 * one chunk, a universal request and response built around Node's, and a `DOMException` with its stack trace to
 * end each call. That was 0.30–0.39 ms of the service's CPU a call, against 0.05–0.07 ms for a bare `node:http2`
 * answer of the same bytes (issue 19; `make bench BENCH=rpc`). Here a call costs the handler context, the
 * interceptors and the protobuf coding, using Connect's own pieces for each (`createHandlerContext`,
 * `invokeUnaryImplementation`, the error JSON codec and the status mapping).
 */
import http2 from 'node:http2';
import { fromBinary, ScalarType, toBinary, type DescField, type DescMessage, type DescService, type Message } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';
import {
  Code,
  ConnectError,
  createHandlerContext,
  createServiceImplSpec,
  type ConnectRouter,
  type Interceptor,
  type MethodImplSpec,
} from '@connectrpc/connect';
import { invokeUnaryImplementation } from '@connectrpc/connect/protocol';
import { codeToHttpStatus, errorToJsonBytes, parseTimeout } from '@connectrpc/connect/protocol-connect';
import { webHeadersOf } from './unary-transport';

type UnarySpec = Extract<MethodImplSpec, { kind: 'unary' }>;

interface UnaryRoute {
  service: DescService;
  spec: UnarySpec;
}

export interface UnaryHandlerOptions {
  interceptors: Interceptor[];
  readMaxBytes: number;
  shutdownSignal: AbortSignal;
}

export interface UnaryHandler {
  /**
   * The routes to give Connect's adapter: they register with it as they are, and each service they register is
   * recorded for the fast path too (one set of implementations for both).
   */
  routes(routes: (router: ConnectRouter) => void): (router: ConnectRouter) => void;
  /** Answers and returns true for the calls it takes; returns false, having touched nothing, for the rest. */
  handle(req: http2.Http2ServerRequest, res: http2.Http2ServerResponse): boolean;
}

/** What a call's context signal is aborted with once its answer is written (a ready value: no stack trace a call). */
const CALL_ENDED = new ConnectError('call ended', Code.Canceled);
/** What it is aborted with when the caller goes away first. */
const CALLER_GONE = new ConnectError('the caller closed the stream', Code.Canceled);

export function unaryHandler(o: UnaryHandlerOptions): UnaryHandler {
  /** The unary methods the routes implement, by request path (`/package.Service/Method`). */
  const found = new Map<string, UnaryRoute>();
  const record = (service: DescService, impl: Parameters<ConnectRouter['service']>[1]) => {
    const spec = createServiceImplSpec(service, impl);
    for (const m of service.methods) {
      const s = spec.methods[m.localName];
      if (s?.kind === 'unary') found.set(`/${service.typeName}/${m.name}`, { service, spec: s });
    }
  };
  return {
    routes: (routes) => (router) => {
      const recording: ConnectRouter = {
        get handlers() {
          return router.handlers;
        },
        service(service, impl, options) {
          router.service(service, impl, options);
          record(service, impl);
          return recording;
        },
        // A single method registered on its own stays Connect's.
        rpc(method, impl, options) {
          router.rpc(method, impl, options);
          return recording;
        },
      };
      routes(recording);
    },
    handle(req, res) {
      const h = req.headers;
      if (req.method !== 'POST' || h['content-type'] !== 'application/proto') return false;
      const encoding = h['content-encoding'];
      if (encoding !== undefined && encoding !== 'identity') return false;
      const route = found.get(req.url);
      if (!route) return false;
      // What answer() cannot write (the stream broke under it) ends the stream rather than the process.
      answer(route, req, res, o).catch(() => {
        if (!res.stream.destroyed) res.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      });
      return true;
    },
  };
}

async function answer(
  route: UnaryRoute,
  req: http2.Http2ServerRequest,
  res: http2.Http2ServerResponse,
  o: UnaryHandlerOptions,
): Promise<void> {
  const { service, spec } = route;
  const timeout = parseTimeout((req.headers['connect-timeout-ms'] as string | undefined) ?? null, Number.MAX_SAFE_INTEGER);
  const context = createHandlerContext({
    service,
    method: spec.method,
    protocolName: 'connect',
    requestMethod: 'POST',
    url: req.url,
    timeoutMs: timeout.timeoutMs,
    shutdownSignal: o.shutdownSignal,
    requestHeader: webHeadersOf(req.headers),
  });
  const gone = () => context.abort(CALLER_GONE);
  res.once('close', gone);
  try {
    if (protocolVersionOf(req) !== '1') throw new ConnectError('unsupported connect-protocol-version', Code.InvalidArgument);
    if (timeout.error) throw timeout.error;
    const bytes = await body(req, o.readMaxBytes);
    let input;
    try {
      input = fromBinary(spec.method.input, bytes);
    } catch (err) {
      throw ConnectError.from(err, Code.InvalidArgument);
    }
    const output = await invokeUnaryImplementation(spec, context, input, o.interceptors);
    const headers: http2.OutgoingHttpHeaders = { ':status': 200, 'content-type': 'application/proto' };
    copyInto(headers, context.responseHeader, '');
    copyInto(headers, context.responseTrailer, 'trailer-');
    res.off('close', gone);
    send(res, headers, ...answerChunks(spec.method.output, output));
  } catch (err) {
    res.off('close', gone);
    const ce = ConnectError.from(err);
    const headers: http2.OutgoingHttpHeaders = { ':status': codeToHttpStatus(ce.code), 'content-type': 'application/json' };
    copyInto(headers, ce.metadata, '');
    copyInto(headers, context.responseHeader, '');
    copyInto(headers, context.responseTrailer, 'trailer-');
    send(res, headers, errorToJsonBytes(ce, {}));
  } finally {
    // Ends the call's signal, its deadline timer and its link to the shutdown signal.
    context.abort(CALL_ENDED);
  }
}

/**
 * Writes the answer on the stream itself: its one DATA frame then carries END_STREAM. The compatibility API's
 * `res.end(body)` ends the stream only once the body's write has completed, in an empty DATA frame of its own: one
 * more write here and one more read (and wake-up) at the caller, every call (strace of the runs service in `reads`).
 */
function send(res: http2.Http2ServerResponse, headers: http2.OutgoingHttpHeaders, ...chunks: Uint8Array[]): void {
  const stream = res.stream;
  if (stream.destroyed) return;
  stream.respond(headers);
  if (chunks.length === 1) return void stream.end(chunks[0]);
  // Corked: the chunks leave in one write (`_writev`), as one body would.
  stream.cork();
  for (let i = 0; i < chunks.length - 1; i++) stream.write(chunks[i]);
  stream.end(chunks[chunks.length - 1]);
  stream.uncork();
}

/** A `bytes` field of this size or more is written as a chunk of its own rather than copied into the message. */
const OWN_CHUNK_BYTES = 4096;
/** The top-level `bytes` fields of implicit presence outside any oneof, by message (`runs_json` and its like). */
const bytesFieldsOf = new WeakMap<DescMessage, DescField[]>();

/**
 * An answer's bytes, as chunks to write in order. A large `bytes` field (a page a service rendered as the public
 * JSON) is written after the rest of the message as its own tag, length and the field's own buffer: protobuf's
 * parsers take fields in any order (a field met twice keeps the last), so the caller decodes the same message.
 * Why: `toBinary` copies it into a writer that starts at 128 bytes and doubles, then slices: for a page of 45 KB,
 * ten buffers and 176 KB allocated outside the heap a call, which the collector then spends its time on (issue 19:
 * the server's CPU a 45 KB call in `make bench BENCH=rpc` went from 0.32 ms to 0.14–0.18).
 */
export function answerChunks(schema: DescMessage, message: Message): Uint8Array[] {
  let fields = bytesFieldsOf.get(schema);
  if (fields === undefined) {
    fields = schema.fields.filter(
      (f) =>
        f.fieldKind === 'scalar' &&
        f.scalar === ScalarType.BYTES &&
        f.oneof === undefined &&
        f.presence === FeatureSet_FieldPresence.IMPLICIT,
    );
    bytesFieldsOf.set(schema, fields);
  }
  let rest: Record<string, unknown> | undefined;
  const tails: Uint8Array[] = [];
  for (const f of fields) {
    const value = (message as unknown as Record<string, Uint8Array | undefined>)[f.localName];
    if (value === undefined || value.length < OWN_CHUNK_BYTES) continue;
    rest ??= { ...message };
    rest[f.localName] = EMPTY;
    tails.push(new BinaryWriter().tag(f.number, WireType.LengthDelimited).uint32(value.length).finish(), value);
  }
  if (rest === undefined) return [toBinary(schema, message)];
  return [toBinary(schema, rest as unknown as Message), ...tails];
}

const EMPTY = new Uint8Array(0);

/** Connect's header for the protocol's version: absent is accepted (Connect's handler does not require it either). */
function protocolVersionOf(req: http2.Http2ServerRequest): string {
  const v = req.headers['connect-protocol-version'];
  return v === undefined ? '1' : String(v);
}

function copyInto(into: http2.OutgoingHttpHeaders, from: Headers, prefix: string): void {
  from.forEach((value, key) => {
    into[prefix + key] = value;
  });
}

function body(req: http2.Http2ServerRequest, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.resume();
        reject(new ConnectError(`message size is larger than configured readMaxBytes ${max}`, Code.ResourceExhausted));
      } else chunks.push(chunk);
    });
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('error', (err) => reject(ConnectError.from(err, Code.Aborted)));
  });
}
