/**
 * The room the dispatcher gives the consumer for deliveries it creates claimed (`Dispatcher.reserve`): a whole
 * project's subscriptions per event while fewer than CREATE_AHEAD × `concurrency` claimed deliveries wait, and
 * what a reservation held is free again once handed over. No database: a reservation only counts.
 */
import type { Pool } from '@assay/db';
import { createLogger } from '@assay/logger';
import { systemClock } from '@assay/service-kit';
import { MAX_SUBSCRIPTIONS_PER_PROJECT } from '@assay/contracts/webhooks/values';
import { CREATE_AHEAD, Dispatcher } from '../../src/workers/dispatcher';
import type { SecretBox } from '../../src/domain/secrets';
import type { Sender } from '../../src/domain/sender';

const dispatcher = (concurrency: number) =>
  new Dispatcher({
    pool: {} as Pool,
    logger: createLogger('test', 'silent'),
    sender: {} as Sender,
    secrets: {} as SecretBox,
    retryDelaysSeconds: [60],
    timeoutMs: 1000,
    concurrency,
    pollIntervalMs: 1000,
    clock: systemClock,
  });

test("four projects' events at once are each created claimed in full", () => {
  const d = dispatcher(32);
  const limits = [1, 2, 3, 4].map(() => d.reserve()?.limit);
  expect(limits).toEqual(Array(4).fill(MAX_SUBSCRIPTIONS_PER_PROJECT));
  // The room left: (1 + CREATE_AHEAD) × 32 − 4 × 50.
  expect(d.reserve()?.limit).toBe((1 + CREATE_AHEAD) * 32 - 4 * MAX_SUBSCRIPTIONS_PER_PROJECT);
  expect(d.reserve()).toBeUndefined();
});

test('a reservation handed over without rows frees its room', () => {
  const d = dispatcher(4);
  const first = d.reserve()!;
  expect(first.limit).toBe((1 + CREATE_AHEAD) * 4);
  expect(d.reserve()).toBeUndefined();
  first.hand([]);
  first.hand([]); // a second hand changes nothing
  expect(d.reserve()?.limit).toBe((1 + CREATE_AHEAD) * 4);
});
