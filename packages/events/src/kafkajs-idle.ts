/**
 * kafkajs 2.2.4 (its last release) keeps a 1 ms timer running on every broker connection that has nothing to
 * send: after each check of a connection's request queue it schedules the next one at `throttledUntil - now`,
 * and with no client-side throttle (`throttledUntil` is -1) that delay is negative, which Node turns into 1 ms
 * (Node 24 warns: TimeoutNegativeWarning). Upstream: tulios/kafkajs#1704 and #1751, fixes proposed in #1667 and
 * #1768, never released.
 *
 * Measured on `make up`: each consumer process (analytics, webhooks) woke about 900 times a second while idle,
 * against about 120 for the other services, and its main thread spent 30–40 ms of CPU a second doing nothing;
 * under load the same timer kept firing between the real work.
 *
 * The fix upstream proposes, wrapped around the original: a connection with nothing pending and no throttle
 * schedules no check. Nothing waits for one: `push` schedules a check when it queues a request, and every
 * answer and every request timeout checks the queue.
 */

/** The part of kafkajs' RequestQueue (src/network/requestQueue) the fix reads and wraps. */
export interface RequestQueueClass {
  prototype: {
    pending: unknown[];
    throttledUntil: number;
    scheduleCheckPendingRequests(): void;
  };
}

const FIXED = Symbol.for('assay.kafkajs.idleCheckFixed');

/** Wraps `scheduleCheckPendingRequests` of the class, once. */
export function fixIdleQueueCheck(RequestQueue: RequestQueueClass): void {
  const proto = RequestQueue.prototype as RequestQueueClass['prototype'] & { [FIXED]?: true };
  if (proto[FIXED]) return;
  const schedule = proto.scheduleCheckPendingRequests;
  proto.scheduleCheckPendingRequests = function (this: RequestQueueClass['prototype']) {
    if (this.pending.length === 0 && !(this.throttledUntil > Date.now())) return;
    schedule.call(this);
  };
  proto[FIXED] = true;
}
