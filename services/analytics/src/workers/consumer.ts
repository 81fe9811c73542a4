/**
 * The run lifecycle consumer: RUN_STARTED records an active run; RUN_FINISHED pulls the run's results from the
 * runs service and folds them into the read model. The port commits a message's offset only after this handler
 * resolved (after the fold committed); a replayed event finds its run folded and changes nothing.
 */
import { fromBinary } from '@bufbuild/protobuf';
import { RunEventType, RunLifecycleEventSchema, type RunLifecycleEvent } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { Topics, type ConsumedEvent, type EventBus, type EventConsumer } from '@assay/events';
import type { Logger } from '@assay/logger';
import type { Worker } from '@assay/service-kit';
import type { ReadModel } from '../read-model';

export interface ConsumerOptions {
  bus: EventBus;
  model: ReadModel;
  logger: Logger;
  groupId: string;
  onFolded?: (runs: number, results: number, ms: number) => void;
  onEvent?: (type: 'started' | 'finished', outcome: 'recorded' | 'folded' | 'skipped') => void;
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

  /** One consumed message. Throws (and so is seen again) only when the database or the runs service fails. */
  async handle(m: ConsumedEvent): Promise<void> {
    let e: RunLifecycleEvent;
    try {
      e = fromBinary(RunLifecycleEventSchema, m.value);
    } catch (err) {
      this.o.logger.error(
        { err: { message: (err as Error).message }, partition: m.partition, offset: m.offset },
        'undecodable run event skipped',
      );
      return;
    }
    if (!e.projectId || !e.run?.id) {
      this.o.logger.warn({ eventId: e.eventId, offset: m.offset }, 'run event without project or run skipped');
      return;
    }
    if (e.type === RunEventType.RUN_STARTED) {
      await this.o.model.runStarted(e.projectId, e.run);
      this.o.onEvent?.('started', 'recorded');
    } else if (e.type === RunEventType.RUN_FINISHED) {
      const started = performance.now();
      const done = await this.o.model.runFinished(e.projectId, e.run.id);
      this.o.onEvent?.('finished', done.runs > 0 ? 'folded' : 'skipped');
      if (done.runs > 0) {
        const ms = performance.now() - started;
        this.o.onFolded?.(done.runs, done.results, ms);
        this.o.logger.debug({ runId: e.run.id, results: done.results, ms: Math.round(ms) }, 'run folded');
      }
    }
  }
}
