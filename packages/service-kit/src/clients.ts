/** Typed clients for calling another process's Connect service over gRPC (h2c). */
import type { DescService } from '@bufbuild/protobuf';
import { createClient, type Client, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { currentRequestId, REQUEST_ID_HEADER } from '@assay/logger';
import { internalAuthClientInterceptor } from './internal-auth';
import { encodePrincipal, PRINCIPAL_HEADER, type Principal } from './principal';

export interface RpcClientOptions {
  /** e.g. http://127.0.0.1:7201 */
  baseUrl: string;
  internalToken: string;
  timeoutMs?: number;
  /** Largest message accepted from the server. */
  readMaxBytes?: number;
}

/** Forwards the current request id (if any) so logs of both processes line up. */
const requestIdInterceptor: Interceptor = (next) => async (req) => {
  const id = currentRequestId();
  if (id && !req.header.has(REQUEST_ID_HEADER)) req.header.set(REQUEST_ID_HEADER, id);
  return next(req);
};

export function createRpcClient<T extends DescService>(service: T, opts: RpcClientOptions): Client<T> {
  const transport = createGrpcTransport({
    baseUrl: opts.baseUrl,
    defaultTimeoutMs: opts.timeoutMs ?? 15000,
    readMaxBytes: opts.readMaxBytes ?? 64 * 1024 * 1024,
    writeMaxBytes: 64 * 1024 * 1024,
    interceptors: [internalAuthClientInterceptor(opts.internalToken), requestIdInterceptor],
    pingIntervalMs: 10000,
    idleConnectionTimeoutMs: 60000,
    // No gzip between processes: Connect asks for compressed answers by default, which on a private network
    // costs CPU on both sides (8–16 % of a read's samples) to save bandwidth nobody is short of.
    acceptCompression: [],
  });
  return createClient(service, transport);
}

/** Call options carrying the caller principal to the service. */
export function asPrincipal(p: Principal, extra: Record<string, string> = {}): { headers: Record<string, string> } {
  return { headers: { [PRINCIPAL_HEADER]: encodePrincipal(p), ...extra } };
}
