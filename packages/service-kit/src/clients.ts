/**
 * Typed clients for calling another process's Connect service (Connect protocol, binary, over h2c): unary calls
 * through `unary-transport.ts`, one HTTP/2 connection per replica of the service (`replicas.ts`) when its URL names
 * a host, streaming ones through Connect's transport on one connection.
 */
import type http2 from 'node:http2';
import net from 'node:net';
import type { DescService } from '@bufbuild/protobuf';
import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { currentRequestId, REQUEST_ID_HEADER } from '@assay/logger';
import { INTERNAL_AUTH_HEADER, internalAuthClientInterceptor, internalAuthValue } from './internal-auth';
import { createUnaryTransport } from './unary-transport';
import { ReplicaSessions, RESOLVE_EVERY_MS, systemLookup, type Lookup } from './replicas';
import { encodePrincipal, PRINCIPAL_HEADER, type Principal } from './principal';

export interface RpcClientOptions {
  /** e.g. http://127.0.0.1:7201 */
  baseUrl: string;
  internalToken: string;
  timeoutMs?: number;
  /** Largest message accepted from the server. */
  readMaxBytes?: number;
  /** How a host name's addresses are found (default: the system's resolver), and how often again. */
  lookup?: Lookup;
  resolveEveryMs?: number;
  /** How long opening a connection may take (default CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
}

/**
 * How long opening a connection to a service may take. A replica gone from the network with its node drops the
 * packets, and the kernel would try for minutes while the calls dealt to it wait out their deadlines; after this
 * the connection fails (ETIMEDOUT: UNAVAILABLE) and the call goes to another replica.
 */
export const CONNECT_TIMEOUT_MS = 3000;

/** A URL's host name or address, an IPv6 one without its brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** A TCP connection to the URL's host that fails after `timeoutMs` unless it is open by then (`http2.connect`'s hook). */
function connectWithin(timeoutMs: number): (authority: URL) => net.Socket {
  return (authority) => {
    const socket = net.connect({ host: hostOf(authority), port: Number(authority.port || 80) });
    // Decided after the turn's I/O: timers run first, so after a stalled event loop (a busy process) a connection
    // opened meanwhile is still `connecting` when its timer fires.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (socket.connecting) socket.destroy(Object.assign(new Error(`connect ETIMEDOUT ${authority.host}`), { code: 'ETIMEDOUT' }));
        }),
      timeoutMs,
    );
    const done = () => clearTimeout(timer);
    socket.once('connect', done).once('close', done);
    return socket;
  };
}

/**
 * HTTP/2 receive windows of both ends of an RPC connection (server.ts uses them too). The protocol's default is
 * 64 KiB for each stream and 64 KiB for the whole connection, whatever the stream count: 16 concurrent answers of
 * 45 KB (a page of runs) then queue behind WINDOW_UPDATE round trips, each answer leaving in pieces over several
 * turns of both event loops (a third of both sides' CPU a call, measured with 45 KB answers at 16 concurrent calls).
 * Node widens only the stream window by setting, the connection's by `setLocalWindowSize`. What a window bounds is
 * how much a peer may send before it is read: a few MiB a connection.
 */
export const RPC_STREAM_WINDOW = 1 << 20;
export const RPC_CONNECTION_WINDOW = 8 << 20;

/** Connect's session manager, widening each new connection's receive window (there is no option for it). */
export class WideWindowSessionManager extends Http2SessionManager {
  private readonly widened = new WeakSet<http2.Http2Session>();

  override async request(...args: Parameters<Http2SessionManager['request']>): Promise<http2.ClientHttp2Stream> {
    const stream = await super.request(...args);
    const session = stream.session;
    if (session && !this.widened.has(session)) {
      this.widened.add(session);
      session.setLocalWindowSize(RPC_CONNECTION_WINDOW);
    }
    return stream;
  }
}

export function createRpcClient<T extends DescService>(service: T, opts: RpcClientOptions): Client<T> {
  const sessionsFor = (baseUrl: string) =>
    new WideWindowSessionManager(
      baseUrl,
      { pingIntervalMs: 10000, idleConnectionTimeoutMs: 60000 },
      { settings: { initialWindowSize: RPC_STREAM_WINDOW }, createConnection: connectWithin(opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS) },
    );
  const sessionManager = sessionsFor(opts.baseUrl);
  const url = new URL(opts.baseUrl);
  const unarySessions =
    net.isIP(hostOf(url)) === 0
      ? new ReplicaSessions(url, sessionsFor, opts.lookup ?? systemLookup, opts.resolveEveryMs ?? RESOLVE_EVERY_MS)
      : sessionManager;
  const timeoutMs = opts.timeoutMs ?? 15000;
  const readMaxBytes = opts.readMaxBytes ?? 64 * 1024 * 1024;
  const authorization = internalAuthValue(opts.internalToken);
  // Streaming methods (none between services today but gRPC health's Watch) go through Connect's own transport.
  const streams = createConnectTransport({
    baseUrl: opts.baseUrl,
    // The Connect protocol rather than gRPC (servers speak both; the probes use gRPC): a unary call is one request
    // and one answer, no envelopes, no trailers.
    httpVersion: '2',
    useBinaryFormat: true,
    sessionManager,
    defaultTimeoutMs: timeoutMs,
    readMaxBytes,
    writeMaxBytes: 64 * 1024 * 1024,
    interceptors: [internalAuthClientInterceptor(opts.internalToken)],
    // No gzip between processes: Connect asks for compressed answers by default, which on a private network
    // costs CPU on both sides (8–16 % of a read's samples) to save bandwidth nobody is short of.
    acceptCompression: [],
  });
  const transport = createUnaryTransport({
    baseUrl: opts.baseUrl,
    sessions: unarySessions,
    defaultTimeoutMs: timeoutMs,
    readMaxBytes,
    streams,
    // The internal credential, and the current request id (unless the call gives one) so that both processes' logs
    // line up.
    headers: (call) => {
      call[INTERNAL_AUTH_HEADER] = authorization;
      const id = currentRequestId();
      if (id && call[REQUEST_ID_HEADER] === undefined) call[REQUEST_ID_HEADER] = id;
    },
  });
  return createClient(service, transport);
}

/** Call options carrying the caller principal to the service. */
export function asPrincipal(p: Principal, extra: Record<string, string> = {}): { headers: Record<string, string> } {
  return { headers: { [PRINCIPAL_HEADER]: encodePrincipal(p), ...extra } };
}
