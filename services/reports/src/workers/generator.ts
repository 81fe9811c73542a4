/**
 * The generator: REPORT_CONCURRENCY kit Loops per process that take pending reports (oldest first, `FOR UPDATE
 * SKIP LOCKED`, so replicas share the work) under a lease of REPORT_GENERATION_TIMEOUT_SECONDS, generate them
 * and store the PDF with status `ready` in one transaction.
 *
 * Never pending forever:
 *   - a failed attempt is retried after REPORT_RETRY_DELAY_SECONDS while the failure may pass (a service
 *     unavailable, a timeout); a permanent one (the project is gone, invalid parameters) fails at once;
 *   - the last of REPORT_MAX_ATTEMPTS attempts that fails marks the report `failed` with the reason;
 *   - a worker killed mid-attempt leaves its lease behind: when it runs out another worker (or the same one
 *     after a restart) takes the report again, and once the last attempt's lease has run out the report is
 *     `failed` ("did not finish").
 * Each attempt is also cut off at the lease by an abort signal on its RPC calls, and the attempt number
 * fences the writes, so a worker that lost its lease cannot overwrite the outcome of a later attempt.
 */
import { withTransaction } from '@assay/db';
import { Loop, type Worker } from '@assay/service-kit';
import { generatePdf, SourceError } from '../domain/collect';
import type { ReportParams } from '../domain/period';
import type { Wiring } from '../wiring';
import { claimNext, completeReport, failAbandoned, failReport, releaseForRetry, type ReportRow } from '../store/reports';

/** Reasons of a failed call that another attempt will not change. */
const PERMANENT = new Set(['NOT_FOUND', 'VALIDATION_ERROR', 'FORBIDDEN', 'UNAUTHORIZED', 'INVALID_LIMIT', 'CONFLICT']);

export const abandonedReason = (attempts: number) =>
  `Generation did not finish: ${attempts === 1 ? 'the attempt' : `all ${attempts} attempts`} ran out of time (the worker stopped or hung)`;

export class Generator implements Worker {
  readonly name = 'report-generator';
  private readonly loops: Loop[];

  constructor(private readonly rt: Wiring) {
    this.loops = Array.from(
      { length: rt.config.REPORT_CONCURRENCY },
      (_, i) => new Loop(`${this.name}-${i + 1}`, () => this.tick(), rt.config.REPORT_POLL_INTERVAL_MS, rt.logger),
    );
  }

  async start(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.start()));
  }

  /** Lets the reports in hand finish (bounded by their lease), then returns. */
  async stop(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.stop()));
  }

  /** A report was requested: idle loops look at once instead of at their next poll. */
  wake(): void {
    for (const l of this.loops) l.kick();
  }

  /** One unit of work: fail abandoned reports, then take and generate one. False when there was none. */
  async tick(): Promise<boolean> {
    const { config, pool } = this.rt;
    const now = this.rt.clock();
    const abandoned = await failAbandoned(pool, now, config.REPORT_MAX_ATTEMPTS, abandonedReason(config.REPORT_MAX_ATTEMPTS));
    if (abandoned > 0) {
      this.rt.logger.warn({ abandoned }, 'reports failed: their last attempt ran out of time');
      for (let i = 0; i < abandoned; i++) this.rt.metrics.generated('async', 'failed', 0);
    }
    const leaseMs = config.REPORT_GENERATION_TIMEOUT_SECONDS * 1000;
    const row = await claimNext(pool, now, new Date(now.getTime() + leaseMs), config.REPORT_MAX_ATTEMPTS);
    if (!row) return abandoned > 0;
    await this.generate(row, leaseMs);
    return true;
  }

  private async generate(row: ReportRow, leaseMs: number): Promise<void> {
    const { rt } = this;
    const log = rt.logger.child({ reportId: row.id, projectId: row.projectId, attempt: row.attempts });
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const params: ReportParams = { days: row.days, branch: row.branch, environment: row.environment, tags: row.tags };
    const period = { days: row.days, fromDate: row.fromDate, untilDate: row.untilDate };
    const signal = AbortSignal.timeout(leaseMs);
    try {
      const pdf = await generatePdf(rt.sources, {
        projectId: row.projectId,
        projectName: row.projectName,
        period,
        params,
        principal: row.requestedBy,
        now: rt.clock(),
        signal,
      });
      const stored = await withTransaction(rt.pool, (c) => completeReport(c, row.id, row.attempts, pdf, rt.clock()));
      if (stored) {
        rt.metrics.generated('async', 'ready', seconds(), pdf.length);
        log.info({ bytes: pdf.length, ms: Math.round(seconds() * 1000) }, 'report ready');
      } else log.warn('report generated after its lease was lost; a later attempt owns it');
    } catch (err) {
      const reason = describe(err);
      const permanent = err instanceof SourceError && PERMANENT.has(err.error.reason);
      if (permanent || row.attempts >= rt.config.REPORT_MAX_ATTEMPTS) {
        const final = permanent || row.attempts === 1 ? reason : `${reason} (after ${row.attempts} attempts)`;
        await failReport(rt.pool, row.id, row.attempts, final, rt.clock());
        rt.metrics.generated('async', 'failed', seconds());
        log.warn({ reason: final, err: errInfo(err) }, 'report failed');
      } else {
        const at = new Date(rt.clock().getTime() + rt.config.REPORT_RETRY_DELAY_SECONDS * 1000);
        await releaseForRetry(rt.pool, row.id, row.attempts, reason, at);
        rt.metrics.generated('async', 'retry', seconds());
        log.warn({ reason, retryAt: at.toISOString(), err: errInfo(err) }, 'report attempt failed; will retry');
      }
    }
  }
}

/** The failure reason a client reads: which step failed and the error's public message (no host, no stack). */
function describe(err: unknown): string {
  if (err instanceof SourceError) return err.message;
  if (err instanceof Error && err.name === 'TimeoutError') return 'Generation timed out';
  return 'Rendering the PDF failed (internal error)';
}

const errInfo = (err: unknown) => ({ message: (err as Error)?.message, name: (err as Error)?.name });
