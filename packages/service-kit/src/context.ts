/** Per-call context values set by the service kit's interceptors and read by handlers. */
import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import { AppError } from '@assay/errors';
import { canWrite, type Principal } from './principal';

export const principalKey = createContextKey<Principal | undefined>(undefined, { description: 'caller principal' });

/** The caller; a handler that needs one and finds none answers UNAUTHORIZED (a bug in the caller). */
export function principalOf(ctx: HandlerContext): Principal {
  const p = ctx.values.get(principalKey);
  if (!p) throw new AppError('UNAUTHORIZED', 'missing caller principal');
  return p;
}

/** Defence in depth: the gateway already refuses viewers and api keys on writes. */
export function requireWriter(ctx: HandlerContext): Principal {
  const p = principalOf(ctx);
  if (p.tokenType !== 'pat' || !canWrite(p)) throw new AppError('FORBIDDEN');
  return p;
}
