/** Shared-secret check on every internal call: services accept principals only from the gateway and the CLI. */
import { timingSafeEqual, createHash } from 'node:crypto';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';

export const INTERNAL_AUTH_HEADER = 'authorization';

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

export function internalTokenMatches(presented: string | null | undefined, expected: string): boolean {
  if (!presented) return false;
  // Compare digests so the comparison is constant-time whatever the lengths.
  return timingSafeEqual(digest(presented), digest(`Bearer ${expected}`));
}

/** Client side: adds the internal token to every outgoing call. */
export function internalAuthClientInterceptor(token: string): Interceptor {
  return (next) => async (req) => {
    req.header.set(INTERNAL_AUTH_HEADER, `Bearer ${token}`);
    return next(req);
  };
}

/** Server side: refuses calls without the internal token (health checks are exempt: probes carry none). */
export function internalAuthServerInterceptor(token: string): Interceptor {
  return (next) => async (req) => {
    if (req.service.typeName !== 'grpc.health.v1.Health' && !internalTokenMatches(req.header.get(INTERNAL_AUTH_HEADER), token)) {
      throw new ConnectError('internal authentication required', Code.Unauthenticated);
    }
    return next(req);
  };
}
