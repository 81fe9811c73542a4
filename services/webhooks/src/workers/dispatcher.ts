/**
 * The dispatcher: claims due deliveries (FOR UPDATE SKIP LOCKED, any number of replicas), signs and sends
 * them with at most `concurrency` in flight, records every attempt, and reschedules failures after the
 * retry schedule (spec §6: 1, 5, 30, 120 minutes; 5 attempts in total).
 *
 * An attempt holds one of the `concurrency` slots while it is sent; its outcome is then handed to the recorder,
 * which writes every outcome that arrived while it wrote the previous batch in one transaction of a fixed
 * number of statements (`completeAttempts`): recording costs a few round trips per batch rather than seven per
 * delivery, and no slot waits for the database. A batch that fails is written again one attempt at a time.
 *
 * Crash safety: a claim counts the attempt and leases the row for `timeout + LEASE_MARGIN_MS`; the outcome
 * is written only by the lease holder. A dispatcher killed mid-attempt leaves a lease that runs out, the row
 * becomes due again, and the next claim records the lost attempt as interrupted before sending again with
 * the same `X-Service-Delivery`. Delivery is therefore at least once, deduplicable by that id.
 *
 * Time is injected (`clock`), and so is the schedule, so tests run the 5-attempt path in milliseconds.
 */
import { withTransaction, type Pool } from '@assay/db';
import type { Logger } from '@assay/logger';
import { Loop, type Clock, type Worker } from '@assay/service-kit';
import type { SecretBox } from '../domain/secrets';
import type { AttemptResult, Sender } from '../domain/sender';
import {
  claimDue,
  completeAttempts,
  failWithoutSending,
  recordInterruptedAttempt,
  type ClaimedDelivery,
  type Completion,
  type CompletionResult,
} from '../store/deliveries';

export const LEASE_MARGIN_MS = 5000;
/** Outcomes written in one transaction at most. */
export const RECORD_BATCH_MAX = 256;

/** An attempt whose outcome waits for the recorder. */
interface Finished {
  completion: Completion;
  d: ClaimedDelivery;
  result: AttemptResult;
}

export interface DispatcherOptions {
  pool: Pool;
  logger: Logger;
  sender: Sender;
  secrets: SecretBox;
  /** Waits before attempts 2..n, in seconds; attempts in total = delays + 1. */
  retryDelaysSeconds: number[];
  timeoutMs: number;
  concurrency: number;
  pollIntervalMs: number;
  clock: Clock;
  /** Called after each recorded attempt (metrics). */
  onAttempt?: (d: ClaimedDelivery, completion: CompletionResult, result: AttemptResult) => void;
}

export class Dispatcher implements Worker {
  readonly name = 'webhook-dispatcher';
  readonly #o: DispatcherOptions;
  readonly #clock: Clock;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #loop: Loop;
  /** Outcomes waiting for the recorder, in the order their attempts finished. */
  #toRecord: Finished[] = [];
  #recording: Promise<void> | undefined;
  /** The batch being written. */
  #batch: Promise<void> | undefined;

  constructor(opts: DispatcherOptions) {
    this.#o = opts;
    this.#clock = opts.clock;
    this.#loop = new Loop(this.name, () => this.#tick(), opts.pollIntervalMs, opts.logger);
  }

  get maxAttempts(): number {
    return this.#o.retryDelaysSeconds.length + 1;
  }

  /** Asks the loop to look for due deliveries now (new deliveries were created). */
  wake(): void {
    this.#loop.kick();
  }

  start(): Promise<void> {
    return this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
    // The attempts in hand finish (bounded by the timeout) and are recorded.
    await Promise.allSettled([...this.#inFlight]);
    while (this.#recording) await this.#recording;
  }

  /**
   * Claims as many due deliveries as there are free slots and starts them. Busy (look again at once) when it
   * filled every slot; with no slot free it waits for an attempt to finish first, and with a full batch of
   * outcomes waiting for the recorder, for the batch it is writing.
   */
  async #tick(): Promise<boolean> {
    const free = this.#o.concurrency - this.#inFlight.size;
    if (free <= 0) {
      await Promise.race(this.#inFlight);
      // Answers that arrived together free their slots together: one claim for all of them.
      await new Promise((resolve) => setImmediate(resolve));
      return true;
    }
    if (this.#toRecord.length >= RECORD_BATCH_MAX && this.#batch) {
      await this.#batch;
      return true;
    }
    const now = this.#clock();
    const claimed = await claimDue(this.#o.pool, now, free, new Date(now.getTime() + this.#o.timeoutMs + LEASE_MARGIN_MS));
    for (const d of claimed) this.#track(this.#process(d));
    return claimed.length === free;
  }

  #track(p: Promise<void>): void {
    this.#inFlight.add(p);
    void p.finally(() => {
      this.#inFlight.delete(p);
      this.wake();
    });
  }

  async #process(d: ClaimedDelivery): Promise<void> {
    const { pool, logger } = this.#o;
    try {
      if (d.interrupted) await recordInterruptedAttempt(pool, d.id, d.attempt - 1, this.#clock());
      if (d.attempt > this.maxAttempts) {
        await withTransaction(pool, (c) =>
          failWithoutSending(c, { ...d, attempt: this.maxAttempts }, 'interrupted: the last attempt was never recorded'),
        );
        return;
      }
      if (!d.active) {
        await withTransaction(pool, (c) =>
          failWithoutSending(c, { ...d, attempt: d.attempt - 1 }, 'not sent: the subscription was disabled'),
        );
        return;
      }
      const startedAt = this.#clock();
      let secret: string | undefined;
      try {
        secret = this.#o.secrets.decrypt(d.secretCiphertext, d.subscriptionId);
      } catch {
        logger.error({ subscriptionId: d.subscriptionId }, 'signing secret cannot be decrypted (was SECRETS_KEY changed?)');
      }
      // An unreadable secret is a failed attempt (nothing is sent unsigned), so the subscription ends up disabled.
      const result =
        secret === undefined
          ? { ok: false, statusCode: null, responseMs: null, error: 'not sent: the signing secret cannot be decrypted' }
          : await this.#o.sender.attempt({
              url: d.url,
              secret,
              body: d.payload,
              event: d.event,
              deliveryId: d.id,
              timestamp: Math.floor(startedAt.getTime() / 1000),
            });
      const now = this.#clock();
      const delay = this.#o.retryDelaysSeconds[d.attempt - 1];
      const plan = {
        now,
        maxAttempts: this.maxAttempts,
        nextAttemptAt: delay === undefined ? null : new Date(now.getTime() + delay * 1000),
      };
      this.#record({ completion: { d, outcome: { ...result, startedAt }, plan }, d, result });
    } catch (err) {
      // The lease runs out and the delivery is tried again.
      logger.error({ err, deliveryId: d.id }, 'delivery attempt could not be processed');
    }
  }

  /** Hands an outcome to the recorder, which starts unless it is writing already (then it takes it with the next batch). */
  #record(f: Finished): void {
    this.#toRecord.push(f);
    if (this.#recording) return;
    this.#recording = (async () => {
      try {
        // Attempts that finish in the same turn of the event loop join this batch.
        await new Promise((resolve) => setImmediate(resolve));
        while (this.#toRecord.length > 0) {
          this.#batch = this.#writeBatch(this.#toRecord.splice(0, RECORD_BATCH_MAX));
          await this.#batch;
        }
      } catch (err) {
        this.#o.logger.error({ err }, 'delivery outcomes could not be recorded');
      } finally {
        this.#recording = undefined;
        this.#batch = undefined;
      }
    })();
  }

  async #writeBatch(batch: Finished[]): Promise<void> {
    const { pool, logger } = this.#o;
    let results: (CompletionResult | undefined)[];
    try {
      const items = batch.map((b) => b.completion);
      results = await withTransaction(pool, (c) => completeAttempts(c, items));
    } catch (err) {
      if (batch.length === 1) {
        // The lease runs out and the delivery is tried again.
        logger.error({ err, deliveryId: batch[0]!.d.id }, 'delivery attempt could not be recorded');
        return;
      }
      // One at a time, so that one attempt that cannot be written does not keep the others from being recorded.
      results = [];
      for (const b of batch) {
        try {
          results.push((await withTransaction(pool, (c) => completeAttempts(c, [b.completion])))[0]);
        } catch (e) {
          logger.error({ err: e, deliveryId: b.d.id }, 'delivery attempt could not be recorded');
          results.push(undefined);
        }
      }
    }
    batch.forEach(({ d, result }, i) => {
      const completion = results[i];
      if (!completion) return;
      if (!completion.recorded) logger.warn({ deliveryId: d.id }, 'delivery lease lost before its outcome was recorded');
      if (completion.disabledSubscription)
        logger.info({ subscriptionId: d.subscriptionId }, 'subscription disabled after consecutive failures');
      this.#o.onAttempt?.(d, completion, result);
    });
  }
}
