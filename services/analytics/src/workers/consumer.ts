/**
 * The run lifecycle consumer: RUN_STARTED records an active run; RUN_FINISHED pulls the run's results from the
 * runs service and folds them into the read model. The kit's EventWorker commits a message's offset only after
 * this handler resolved (after the fold committed); a replayed event finds its run folded and changes nothing.
 */
import { RunEventType, RunLifecycleEventSchema, type RunLifecycleEvent } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { Topics, type ConsumedEvent } from '@assay/events';
import { EventWorker } from '@assay/service-kit';
import type { Wiring } from '../wiring';

export type ConsumerOptions = Pick<Wiring, 'bus' | 'model' | 'logger'> & {
  groupId: string;
  /** Metrics: a run folded (its results, the time it took), an event handled and what came of it. */
  onFolded?: (runs: number, results: number, ms: number) => void;
  onEvent?: (type: 'started' | 'finished', outcome: 'recorded' | 'folded' | 'skipped') => void;
};

const RUN_LIFECYCLE = { name: 'run-lifecycle-consumer', topic: Topics.RUN_LIFECYCLE, schema: RunLifecycleEventSchema };

export const runEventConsumer = (o: ConsumerOptions): EventWorker<typeof RunLifecycleEventSchema> =>
  new EventWorker({ ...RUN_LIFECYCLE, bus: o.bus, groupId: o.groupId, logger: o.logger, handle: (e, m) => foldEvent(o, e, m) });

/** One event into the read model. Throws (and so is seen again) only when the database or the runs service fails. */
async function foldEvent(o: ConsumerOptions, e: RunLifecycleEvent, m: ConsumedEvent): Promise<void> {
  if (!e.projectId || !e.run?.id) {
    o.logger.warn({ eventId: e.eventId, offset: m.offset }, 'run event without project or run skipped');
    return;
  }
  if (e.type === RunEventType.RUN_STARTED) {
    await o.model.runStarted(e.projectId, e.run);
    o.onEvent?.('started', 'recorded');
  } else if (e.type === RunEventType.RUN_FINISHED) {
    const started = performance.now();
    const done = await o.model.runFinished(e.projectId, e.run.id);
    o.onEvent?.('finished', done.runs > 0 ? 'folded' : 'skipped');
    if (done.runs > 0) {
      const ms = performance.now() - started;
      o.onFolded?.(done.runs, done.results, ms);
      o.logger.debug({ runId: e.run.id, results: done.results, ms: Math.round(ms) }, 'run folded');
    }
  }
}
