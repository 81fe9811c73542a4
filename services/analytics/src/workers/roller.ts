/**
 * Background upkeep of the read model:
 * - at start, when the read model is empty (a new installation, a dropped schema), a rebuild from the runs
 *   service (one replica does it: advisory lock);
 * - every ANALYTICS_ROLL_INTERVAL_MS, the rolling windows of projects still on a past day move to today, so the
 *   first read after midnight does not pay for it (reads move them too when they find them behind).
 */
import type { Logger } from '@assay/logger';
import type { Worker } from '@assay/service-kit';
import type { ReadModel } from '../read-model';

export interface RollerOptions {
  model: ReadModel;
  logger: Logger;
  intervalMs: number;
  rebuildOnEmpty: boolean;
}

const REBUILD_LOCK = 'assay:analytics:bootstrap-rebuild';

export class Roller implements Worker {
  readonly name = 'read-model-roller';
  #timer?: NodeJS.Timeout;
  #running?: Promise<void>;
  #stopped = false;

  constructor(private readonly o: RollerOptions) {}

  async start(): Promise<void> {
    this.#stopped = false;
    this.#running = (this.o.rebuildOnEmpty ? this.bootstrap() : Promise.resolve()).then(() => this.schedule());
  }

  private schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.roll().finally(() => this.schedule());
    }, this.o.intervalMs);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running?.catch(() => undefined);
  }

  /** Rebuild all when nothing was ever folded; skipped when another replica holds the lock. */
  async bootstrap(): Promise<void> {
    const client = await this.o.model.pool.connect();
    try {
      const { rows } = await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [REBUILD_LOCK]);
      if (!rows[0].locked) return;
      try {
        if (!(await this.o.model.isEmpty())) return;
        this.o.logger.info('read model empty: rebuilding from the runs service');
        await this.o.model.rebuild(undefined);
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [REBUILD_LOCK]);
      }
    } catch (err) {
      this.o.logger.error({ err }, 'bootstrap rebuild failed (the consumer still folds new runs; run analytics:rebuild --all)');
    } finally {
      client.release();
    }
  }

  async roll(): Promise<void> {
    try {
      for (;;) {
        const stale = await this.o.model.staleProjects(100);
        if (stale.length === 0) return;
        for (const projectId of stale) {
          if (this.#stopped) return;
          await this.o.model.advance(projectId);
        }
      }
    } catch (err) {
      this.o.logger.warn({ err }, 'moving rolling windows failed; retried at the next interval');
    }
  }
}
