/**
 * Relays outbox rows to Kafka (`assay.run-lifecycle.v1`, key = run id, value = RunLifecycleEvent). One relay
 * at a time across replicas (a transaction-scoped advisory lock), rows in `seq` order, marked published in the
 * same transaction only after the broker acknowledged them: per-run order is kept (one key → one partition),
 * nothing is lost while Kafka is down (rows wait), and a crash between publish and commit only repeats events
 * (consumers dedupe on event_id).
 */
import { withTransaction, type Pool } from '@assay/db';
import { Topics, type EventBus, type EventPublisher } from '@assay/events';
import type { Logger } from '@assay/logger';
import { Loop, type Clock } from '@assay/service-kit';
import { markPublished, pendingEvents, prunePublished, tryRelayLock } from '../store/outbox';

const BATCH = 200;
const RETENTION_MS = 7 * 86400_000;
const PRUNE_EVERY_MS = 3600_000;

export function outboxRelay(opts: { pool: Pool; bus: EventBus; logger: Logger; pollMs: number; clock: Clock }): Loop {
  let publisher: EventPublisher | undefined;
  let topicReady = false;
  let lastPrune = 0;
  const drop = () => {
    const p = publisher;
    publisher = undefined;
    topicReady = false;
    void p?.disconnect().catch(() => undefined);
  };
  const loop = new Loop(
    'outbox-relay',
    async () => {
      try {
        return await withTransaction(opts.pool, async (c) => {
          if (!(await tryRelayLock(c))) return false;
          const now = opts.clock().getTime();
          if (now - lastPrune > PRUNE_EVERY_MS) {
            lastPrune = now;
            await prunePublished(c, new Date(now - RETENTION_MS));
          }
          const events = await pendingEvents(c, BATCH);
          if (events.length === 0) return false;
          if (!topicReady) {
            await opts.bus.ensureTopics([{ topic: Topics.RUN_LIFECYCLE, numPartitions: 3 }]);
            topicReady = true;
          }
          publisher ??= await opts.bus.publisher();
          await publisher.publish(
            Topics.RUN_LIFECYCLE,
            events.map((e) => ({ key: e.runId, value: e.payload, headers: { 'event-id': e.eventId, 'event-type': e.type } })),
          );
          await markPublished(
            c,
            events.map((e) => e.seq),
          );
          return events.length === BATCH;
        });
      } catch (err) {
        drop();
        throw err;
      }
    },
    opts.pollMs,
    opts.logger,
  );
  const stop = loop.stop.bind(loop);
  loop.stop = async () => {
    await stop();
    drop();
  };
  return loop;
}
