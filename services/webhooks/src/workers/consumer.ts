/**
 * The run lifecycle consumer: each event on `assay.run-lifecycle.v1` becomes one delivery row per matching
 * active subscription. The port commits a message's offset only after this handler resolved, i.e. after the
 * rows are committed; a replayed event inserts nothing new (unique per event and subscription).
 */
import { fromBinary } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { RunLifecycleEventSchema, type RunLifecycleEvent } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { Topics, type ConsumedEvent, type EventBus, type EventConsumer } from '@assay/events';
import type { Pool } from '@assay/db';
import type { Logger } from '@assay/logger';
import type { Worker } from '@assay/service-kit';
import { buildPayload, eventTypeOf, hasFailures } from '../domain/payload';
import { createDeliveriesForEvent } from '../store/deliveries';

export interface ConsumerOptions {
  bus: EventBus;
  pool: Pool;
  logger: Logger;
  groupId: string;
  /** Told when new deliveries exist, so the dispatcher need not wait for its next poll. */
  onDeliveries?: (count: number) => void;
  clock?: () => Date;
}

export class RunEventConsumer implements Worker {
  readonly name = 'run-lifecycle-consumer';
  #consumer?: EventConsumer;

  constructor(private readonly o: ConsumerOptions) {}

  async start(): Promise<void> {
    await this.o.bus.ensureTopics([{ topic: Topics.RUN_LIFECYCLE }]);
    this.#consumer = this.o.bus.consumer({ groupId: this.o.groupId, topics: [Topics.RUN_LIFECYCLE] });
    await this.#consumer.start((m) => this.handle(m));
  }

  async stop(): Promise<void> {
    await this.#consumer?.stop();
  }

  /** Exported for tests: one consumed message. Throws (and so is seen again) only when the database fails. */
  async handle(m: ConsumedEvent): Promise<void> {
    let e: RunLifecycleEvent;
    try {
      e = fromBinary(RunLifecycleEventSchema, m.value);
    } catch (err) {
      // A message nobody can decode would block the partition forever: log it and move on.
      this.o.logger.error(
        { err: { message: (err as Error).message }, partition: m.partition, offset: m.offset },
        'undecodable run event skipped',
      );
      return;
    }
    const event = eventTypeOf(e);
    if (!event || !e.eventId || !e.projectId || !e.run?.id) {
      this.o.logger.warn({ eventId: e.eventId, type: e.type, offset: m.offset }, 'run event without type, id, project or run skipped');
      return;
    }
    const now = (this.o.clock ?? (() => new Date()))();
    const created = await createDeliveriesForEvent(this.o.pool, {
      eventId: e.eventId,
      projectId: e.projectId,
      event,
      runId: e.run.id,
      failed: hasFailures(e),
      eventAt: e.occurredAt ? timestampDate(e.occurredAt) : now,
      payload: buildPayload(e, event),
      now,
    });
    if (created > 0) {
      this.o.logger.debug({ eventId: e.eventId, event, created }, 'deliveries created');
      this.o.onDeliveries?.(created);
    }
  }
}
