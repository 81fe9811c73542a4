/**
 * The run lifecycle consumer: each event on `assay.run-lifecycle.v1` becomes one delivery row per matching
 * active subscription. The port commits a message's offset only after this handler resolved, i.e. after the
 * rows are committed; a replayed event inserts nothing new (unique per event and subscription).
 */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { RunLifecycleEventSchema, type RunLifecycleEvent } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { Topics, type ConsumedEvent, type EventBus } from '@assay/events';
import type { Pool } from '@assay/db';
import type { Logger } from '@assay/logger';
import { EventWorker, type Clock } from '@assay/service-kit';
import { buildPayload, eventTypeOf, hasFailures } from '../domain/payload';
import { createDeliveriesForEvent } from '../store/deliveries';
import type { Reservation } from './dispatcher';

/** The topic's partitions (`ensureTopics` creates 3). */
const PARTITIONS_CONCURRENTLY = 3;

export interface ConsumerOptions {
  bus: EventBus;
  pool: Pool;
  logger: Logger;
  groupId: string;
  /** Told when new deliveries exist, so the dispatcher need not wait for its next poll. */
  onDeliveries?: (count: number) => void;
  /** Room to create deliveries claimed for this process's dispatcher (`Dispatcher.reserve`). */
  reserve?: () => Reservation | undefined;
  clock: Clock;
}

export function runEventConsumer(o: ConsumerOptions): EventWorker<typeof RunLifecycleEventSchema> {
  return new EventWorker({
    name: 'run-lifecycle-consumer',
    bus: o.bus,
    topic: Topics.RUN_LIFECYCLE,
    groupId: o.groupId,
    schema: RunLifecycleEventSchema,
    logger: o.logger,
    // Events of different runs (keys) are independent: one partition's inserts need not wait for another's.
    partitionsConcurrently: PARTITIONS_CONCURRENTLY,
    // And so are those of one partition: 4 projects' events on 3 partitions had one event's rows wait for another's
    // insert (in webhook-fanout the last 50 rows existed ~20 ms after the others). A run's events stay in order.
    keysConcurrently: true,
    handle: (e, m) => deliveriesFor(o, e, m),
  });
}

/** One event → its delivery rows. Throws (and so is seen again) only when the database fails. */
async function deliveriesFor(o: ConsumerOptions, e: RunLifecycleEvent, m: ConsumedEvent): Promise<void> {
  const event = eventTypeOf(e);
  if (!event || !e.eventId || !e.projectId || !e.run?.id) {
    o.logger.warn({ eventId: e.eventId, type: e.type, offset: m.offset }, 'run event without type, id, project or run skipped');
    return;
  }
  const now = o.clock();
  const input = {
    eventId: e.eventId,
    projectId: e.projectId,
    event,
    runId: e.run.id,
    failed: hasFailures(e),
    eventAt: e.occurredAt ? timestampDate(e.occurredAt) : now,
    payload: buildPayload(e, event),
    now,
  };
  const room = o.reserve?.();
  let created: number;
  if (room) {
    try {
      const r = await createDeliveriesForEvent(o.pool, input, room);
      created = r.created;
      room.hand(r.claimed);
    } finally {
      room.hand([]);
    }
  } else created = await createDeliveriesForEvent(o.pool, input);
  if (created > 0) {
    o.logger.debug({ eventId: e.eventId, event, created }, 'deliveries created');
    o.onDeliveries?.(created);
  }
}
