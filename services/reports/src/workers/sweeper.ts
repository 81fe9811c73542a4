/** Retention: reports (ready or failed, and their PDFs) older than REPORT_RETENTION_DAYS are deleted. */
import type { Worker } from '@assay/service-kit';
import { deleteExpired } from '../store/reports';
import type { Wiring } from '../wiring';

const BATCH = 500;

/** Deletes every expired report, in batches. Returns how many. */
export async function sweepOnce(rt: Pick<Wiring, 'pool' | 'now'>): Promise<number> {
  const now = rt.now();
  let total = 0;
  for (;;) {
    const n = await deleteExpired(rt.pool, now, BATCH);
    total += n;
    if (n < BATCH) return total;
  }
}

export class RetentionSweeper implements Worker {
  readonly name = 'report-retention-sweeper';
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> = Promise.resolve();
  private running = false;

  constructor(private readonly rt: Wiring) {}

  async start(): Promise<void> {
    this.running = true;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.current;
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.current = this.sweep().finally(() => this.schedule(this.rt.config.REPORT_SWEEP_INTERVAL_SECONDS * 1000));
    }, ms);
  }

  private async sweep(): Promise<void> {
    try {
      const n = await sweepOnce(this.rt);
      if (n > 0) {
        this.rt.metrics.swept(n);
        this.rt.logger.info({ deleted: n }, 'expired reports deleted');
      }
    } catch (err) {
      this.rt.logger.warn({ err: { message: (err as Error).message } }, 'retention sweep failed');
    }
  }
}
