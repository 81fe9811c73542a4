/**
 * A service's transactions commit only while their caller still waits (`runForCaller` in @assay/db): a caller that
 * gave up (its deadline passed, its connection dropped) has answered its own caller a 5xx to retry, and a create
 * committed after that would be stored twice by the retry. The gateway sends its deadline with every call, RPCs and
 * requests to a service's internal HTTP port alike.
 */
import type { Interceptor } from '@connectrpc/connect';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { runForCaller } from '@assay/db';

/** The caller's deadline in milliseconds: Connect's header, sent on internal HTTP requests too. */
export const DEADLINE_HEADER = 'connect-timeout-ms';

/**
 * How long before its deadline a caller's work stops committing: the caller started its clock before it sent, and a
 * commit and its answer take time, so a commit at the deadline itself would land after the caller gave up.
 */
const COMMIT_MARGIN_MS = 500;

/** The `performance.now()` after which a commit would come too late for the deadline header's caller. */
function commitBy(deadline: unknown): number {
  const ms = typeof deadline === 'string' ? Number(deadline) : 0;
  return ms > 0 ? performance.now() + ms - Math.min(COMMIT_MARGIN_MS, ms / 4) : Infinity;
}

/** Every RPC: the caller gave up once the call's signal aborted (caller gone, deadline) before the answer. */
export function callerScopeInterceptor(): Interceptor {
  return (next) => async (req) => {
    const by = commitBy(req.header.get(DEADLINE_HEADER));
    let answered = false;
    try {
      return await runForCaller({ gaveUp: () => !answered && (req.signal.aborted || performance.now() > by) }, () => next(req));
    } finally {
      answered = true;
    }
  };
}

/** Every route of a service's internal HTTP port (its `onRoute` hook): the caller is gone once its connection is. */
export function withCallerScope(route: RouteOptions): void {
  const handler = route.handler;
  route.handler = function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
    const by = commitBy(request.headers[DEADLINE_HEADER]);
    let gone = false;
    reply.raw.once('close', () => {
      gone = !reply.raw.writableFinished;
    });
    const gaveUp = () => !reply.raw.writableFinished && (gone || performance.now() > by);
    return runForCaller({ gaveUp }, () => handler.call(this as never, request, reply));
  };
}
