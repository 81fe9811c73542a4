/**
 * A worker that runs `tick` until stopped: again at once while it reports more work, else after `idleMs` or a
 * kick (a kick that arrives while a tick runs is remembered, so work signalled meanwhile is never left waiting
 * for the next poll). A tick that throws is logged and retried with exponential backoff (200 ms … maxBackoffMs).
 */
import type { Logger } from '@assay/logger';
import type { Worker } from './server';

export class Loop implements Worker {
  private running = false;
  private current: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private kicked = false;

  constructor(
    readonly name: string,
    private readonly tick: () => Promise<boolean>,
    private readonly idleMs: number,
    private readonly logger: Logger,
    private readonly maxBackoffMs = 5000,
  ) {}

  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  async start(): Promise<void> {
    this.running = true;
    this.current = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.kick();
    await this.current;
  }

  private sleep(ms: number): Promise<void> {
    if (this.kicked) {
      this.kicked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wake = () => {
        clearTimeout(this.timer);
        this.wake = undefined;
        this.kicked = false;
        resolve();
      };
      this.timer = setTimeout(() => this.wake?.(), ms);
    });
  }

  private async run(): Promise<void> {
    while (this.running) {
      let busy = false;
      try {
        busy = await this.tick();
        this.failures = 0;
      } catch (err) {
        this.failures++;
        if (this.failures === 1 || this.failures % 20 === 0)
          this.logger.warn({ worker: this.name, failures: this.failures, err: { message: (err as Error).message } }, 'worker tick failed');
      }
      if (!this.running) break;
      if (this.failures > 0) await this.sleep(Math.min(this.maxBackoffMs, 200 * 2 ** Math.min(this.failures, 5)));
      else if (!busy) await this.sleep(this.idleMs);
    }
  }
}

/**
 * A retention sweeper: `sweep` (which deletes everything expired at the time and answers how many) at start and then
 * every `intervalMs`, on a Loop, so a failed sweep is retried with its backoff. A sweep that deleted something is
 * counted in `metrics.swept` and logged as `<what> deleted`.
 */
export function retentionLoop(o: {
  name: string;
  sweep: () => Promise<number>;
  intervalMs: number;
  logger: Logger;
  metrics: { swept(count: number): void };
  what: string;
}): Loop {
  return new Loop(
    o.name,
    async () => {
      const n = await o.sweep();
      if (n > 0) {
        o.metrics.swept(n);
        o.logger.info({ deleted: n }, `${o.what} deleted`);
      }
      // Everything expired is gone: nothing more until the next interval.
      return false;
    },
    o.intervalMs,
    o.logger,
  );
}
