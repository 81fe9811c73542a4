/**
 * kafkajs-idle.ts on kafkajs' own RequestQueue: the released code re-checks an idle connection's queue every
 * millisecond; with the fix an idle queue schedules nothing, and queued requests are still sent, whether they
 * waited for an in-flight slot or for a client-side throttle to end.
 */
import { createRequire } from 'node:module';
import { fixIdleQueueCheck, type RequestQueueClass } from '../../src/kafkajs-idle';

interface Queue {
  pending: unknown[];
  inflight: Map<number, unknown>;
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
  push(request: { entry: object; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
}

const RequestQueue = createRequire(__filename)('kafkajs/src/network/requestQueue') as RequestQueueClass & {
  new (opts: object): Queue;
};
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const newQueue = (): Queue =>
  new RequestQueue({
    maxInFlightRequests: 1,
    requestTimeout: 10000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'b:9092',
    logger: quiet,
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `done` until it holds, for at most 5 s (timers run late on a loaded machine). */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done() && Date.now() < deadline) await sleep(5);
  expect(done()).toBe(true);
}

/** Counts the queue's checks over `ms` after one first check (what every answer from the broker does). */
async function checksWhileIdle(queue: Queue, ms: number): Promise<number> {
  let checks = 0;
  const check = queue.checkPendingRequests.bind(queue);
  queue.checkPendingRequests = () => {
    checks++;
    check();
  };
  queue.checkPendingRequests();
  await sleep(ms);
  queue.destroy();
  return checks - 1;
}

/** A request as a connection pushes it; `sent` records the order requests went out. */
function request(correlationId: number, sent: number[]) {
  return {
    entry: { correlationId, apiKey: 1, apiName: 'Fetch', apiVersion: 11, resolve: () => undefined, reject: () => undefined },
    expectResponse: true,
    sendRequest: () => sent.push(correlationId),
  };
}

describe("kafkajs' request queue on an idle connection", () => {
  it('as released, checks an empty queue again every millisecond (if this fails, kafkajs fixed it: drop kafkajs-idle.ts)', async () => {
    // The released queue asks for a negative delay, which Node runs after 1 ms with a TimeoutNegativeWarning on the
    // test run's stderr (Node's own `process`, not the one jest gives a test): clamp it here as Node would, silently.
    const setTimeoutAsNode = global.setTimeout;
    let negative = 0;
    const timers = jest.spyOn(global, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      if (ms !== undefined && ms < 0) negative++;
      return setTimeoutAsNode(fn, ms !== undefined && ms < 1 ? 1 : ms);
    }) as typeof setTimeout);
    try {
      expect(await checksWhileIdle(newQueue(), 200)).toBeGreaterThan(5);
      expect(negative).toBeGreaterThan(5);
    } finally {
      timers.mockRestore();
    }
  });

  describe('with the fix', () => {
    beforeAll(() => {
      fixIdleQueueCheck(RequestQueue);
      fixIdleQueueCheck(RequestQueue); // once only: a second call does not wrap again
    });

    it('schedules no check while nothing is pending', async () => {
      const queue = newQueue();
      expect(await checksWhileIdle(queue, 200)).toBe(0);
      expect(queue.throttleCheckTimeoutId).toBeNull();
    });

    it('sends a request that waited for an in-flight slot when the answer before it arrives', async () => {
      const queue = newQueue();
      const sent: number[] = [];
      queue.push(request(1, sent));
      queue.push(request(2, sent));
      expect(sent).toEqual([1]);
      expect(queue.pending).toHaveLength(1);
      queue.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
      expect(sent).toEqual([1, 2]);
      queue.fulfillRequest({ correlationId: 2, payload: Buffer.alloc(0), size: 0 });
      // The check queued with request 2 (10 ms) runs once, finds nothing, and schedules no other.
      await until(() => queue.throttleCheckTimeoutId === null);
      queue.destroy();
    });

    it('sends a request queued behind a client-side throttle once the throttle ends', async () => {
      const queue = newQueue();
      const sent: number[] = [];
      queue.maybeThrottle(60);
      const pushedAt = Date.now();
      queue.push(request(7, sent));
      expect(sent).toEqual([]);
      await until(() => sent.length === 1);
      expect(Date.now() - pushedAt).toBeGreaterThanOrEqual(55);
      expect(sent).toEqual([7]);
      queue.fulfillRequest({ correlationId: 7, payload: Buffer.alloc(0), size: 0 });
      await until(() => queue.throttleCheckTimeoutId === null);
      queue.destroy();
    });
  });
});
