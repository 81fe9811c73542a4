/**
 * Who is calling, inside the cluster. Every process has its own credential (INTERNAL_AUTH_TOKEN, at least 32
 * characters) that it presents on each internal call; a server knows its callers only by name and SHA-256 of
 * their credentials (INTERNAL_CALLERS, `name:sha256hex,…`), so no server can impersonate a caller, and a
 * credential a server does not list is refused. Admin RPCs (tokens, roles, rules, plans, rebuilds) answer only
 * the caller named `admin`: the admin CLI's credential.
 */
import { Code, ConnectError, createContextKey, type Interceptor } from '@connectrpc/connect';
import { credentialHash, type Callers } from '@assay/config';

export { credentialHash, formatCallers, parseCallers, type Callers } from '@assay/config';

export const INTERNAL_AUTH_HEADER = 'authorization';
/** The name of the admin CLI's credential: the only caller admin RPCs accept. */
export const ADMIN_CALLER = 'admin';

/**
 * Headers already found to name a caller, by caller list: every RPC carries one, and a map lookup costs less than a
 * SHA-256 each call. Only headers of listed credentials are kept, so a list's cache holds at most one per caller.
 */
const knownHeaders = new WeakMap<Callers, Map<string, string>>();

/** The caller a presented Authorization header names, or undefined when it is not a known credential. */
export function callerOf(header: string | null | undefined, callers: Callers): string | undefined {
  if (!header || !header.startsWith('Bearer ')) return undefined;
  let known = knownHeaders.get(callers);
  const hit = known?.get(header);
  if (hit !== undefined) return hit;
  // A lookup by hash: comparing digests leaks nothing about the credentials themselves.
  const caller = callers.get(credentialHash(header.slice('Bearer '.length)));
  if (caller !== undefined) {
    if (!known) knownHeaders.set(callers, (known = new Map()));
    known.set(header, caller);
  }
  return caller;
}

export const callerKey = createContextKey<string | undefined>(undefined, { description: 'internal caller name' });

/** The value of INTERNAL_AUTH_HEADER that presents a credential. */
export const internalAuthValue = (token: string) => `Bearer ${token}`;

/** Client side: presents this process's credential on every outgoing call. */
export function internalAuthClientInterceptor(token: string): Interceptor {
  return (next) => async (req) => {
    req.header.set(INTERNAL_AUTH_HEADER, internalAuthValue(token));
    return next(req);
  };
}

/**
 * Server side: refuses calls without a known credential (health checks are exempt: probes carry none), and
 * calls of an admin service from any caller but `admin`.
 */
export function internalAuthServerInterceptor(callers: Callers, adminServices: ReadonlySet<string> = new Set()): Interceptor {
  return (next) => async (req) => {
    if (req.service.typeName === 'grpc.health.v1.Health') return next(req);
    const caller = callerOf(req.header.get(INTERNAL_AUTH_HEADER), callers);
    if (!caller) throw new ConnectError('internal authentication required', Code.Unauthenticated);
    if (adminServices.has(req.service.typeName) && caller !== ADMIN_CALLER) {
      throw new ConnectError(`${req.service.typeName} answers only the admin credential`, Code.PermissionDenied);
    }
    req.contextValues.set(callerKey, caller);
    return next(req);
  };
}
