/**
 * A Kafka consumer as a worker: joins its group on start, decodes each message with the topic's protobuf
 * schema and hands it to `handle`. A message nobody can decode would block its partition forever, so it is
 * logged and skipped; any other failure of `handle` makes the port back off and deliver it again (handlers
 * are idempotent). Offsets are committed only after `handle` resolved.
 */
import { fromBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import type { ConsumedEvent, EventBus, EventConsumer } from '@assay/events';
import type { Logger } from '@assay/logger';
import type { Worker } from './server';

export interface EventWorkerOptions<S extends DescMessage> {
  name: string;
  bus: EventBus;
  topic: string;
  groupId: string;
  schema: S;
  logger: Logger;
  /** Partitions handled at the same time (default 1); one partition's messages stay in order. */
  partitionsConcurrently?: number;
  /** One partition's messages of different keys handled at the same time (default false); one key's stay in order. */
  keysConcurrently?: boolean;
  handle(message: MessageShape<S>, meta: ConsumedEvent): Promise<void>;
}

export class EventWorker<S extends DescMessage> implements Worker {
  readonly name: string;
  #consumer?: EventConsumer;

  constructor(private readonly o: EventWorkerOptions<S>) {
    this.name = o.name;
  }

  async start(): Promise<void> {
    await this.o.bus.ensureTopics([{ topic: this.o.topic }]);
    this.#consumer = this.o.bus.consumer({
      groupId: this.o.groupId,
      topics: [this.o.topic],
      partitionsConcurrently: this.o.partitionsConcurrently,
      keysConcurrently: this.o.keysConcurrently,
    });
    await this.#consumer.start((m) => this.deliver(m));
  }

  async stop(): Promise<void> {
    await this.#consumer?.stop();
  }

  /** One consumed message (tests call it directly). */
  async deliver(m: ConsumedEvent): Promise<void> {
    let message: MessageShape<S>;
    try {
      message = fromBinary(this.o.schema, m.value);
    } catch (err) {
      this.o.logger.error(
        { err: { message: (err as Error).message }, topic: m.topic, partition: m.partition, offset: m.offset },
        'undecodable event skipped',
      );
      return;
    }
    await this.o.handle(message, m);
  }
}
