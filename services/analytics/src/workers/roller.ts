/**
 * Background upkeep of the read model, a kit Loop:
 * - its first tick, when the read model is empty (a new installation, a dropped schema), rebuilds it from the
 *   runs service (one replica does it: advisory lock);
 * - then every ANALYTICS_ROLL_INTERVAL_MS it moves the rolling windows of projects still on a past day to today
 *   (a batch at a time, again at once while batches are full), so the first read after midnight does not pay
 *   for it (reads move them too when they find them behind). A failed tick is retried with the Loop's backoff.
 */
import type { Logger } from '@assay/logger';
import { Loop, type Worker } from '@assay/service-kit';
import type { ReadModel } from '../read-model';
import { withTryLock } from '../store/read-model';

export interface RollerOptions {
  model: ReadModel;
  logger: Logger;
  intervalMs: number;
  rebuildOnEmpty: boolean;
}

const REBUILD_LOCK = 'assay:analytics:bootstrap-rebuild';
/** Projects moved per tick. */
const BATCH = 100;

export class Roller implements Worker {
  readonly name = 'read-model-roller';
  readonly #loop: Loop;
  #booted = false;
  #stopping = false;

  constructor(private readonly o: RollerOptions) {
    this.#loop = new Loop(this.name, () => this.#tick(), o.intervalMs, o.logger);
  }

  async start(): Promise<void> {
    this.#stopping = false;
    await this.#loop.start();
  }

  /** Waits for the tick in hand (a rebuild in hand finishes its batch). */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#loop.stop();
  }

  /** Rebuild all when nothing was ever folded; skipped when another replica holds the lock. */
  async bootstrap(): Promise<void> {
    try {
      await withTryLock(this.o.model.pool, REBUILD_LOCK, async () => {
        if (!(await this.o.model.isEmpty())) return;
        this.o.logger.info('read model empty: rebuilding from the runs service');
        await this.o.model.rebuild(undefined);
      });
    } catch (err) {
      this.o.logger.error({ err }, 'bootstrap rebuild failed (the consumer still folds new runs; run analytics:rebuild --all)');
    }
  }

  /** Moves up to BATCH stale projects to today. Busy (look again at once) when the batch was full. */
  async roll(): Promise<boolean> {
    const stale = await this.o.model.staleProjects(BATCH);
    for (const projectId of stale) {
      if (this.#stopping) return false;
      await this.o.model.advance(projectId);
    }
    return stale.length === BATCH;
  }

  async #tick(): Promise<boolean> {
    if (!this.#booted) {
      this.#booted = true;
      if (this.o.rebuildOnEmpty) await this.bootstrap();
    }
    return this.roll();
  }
}
