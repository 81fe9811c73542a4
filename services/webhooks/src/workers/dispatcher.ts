/**
 * The dispatcher: claims due deliveries (FOR UPDATE SKIP LOCKED, any number of replicas), signs and sends
 * them with at most `concurrency` in flight, records every attempt, and reschedules failures after the
 * retry schedule (spec §6: 1, 5, 30, 120 minutes; 5 attempts in total).
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
  completeAttempt,
  failWithoutSending,
  recordInterruptedAttempt,
  type ClaimedDelivery,
  type CompletionResult,
} from '../store/deliveries';

export const LEASE_MARGIN_MS = 5000;

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
  }

  /**
   * Claims as many due deliveries as there are free slots and starts them. Busy (look again at once) when it
   * filled every slot; with no slot free it waits for an attempt to finish first.
   */
  async #tick(): Promise<boolean> {
    const free = this.#o.concurrency - this.#inFlight.size;
    if (free <= 0) {
      await Promise.race(this.#inFlight);
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
      const completion = await withTransaction(pool, (c) =>
        completeAttempt(
          c,
          d,
          { ...result, startedAt },
          { now, maxAttempts: this.maxAttempts, nextAttemptAt: delay === undefined ? null : new Date(now.getTime() + delay * 1000) },
        ),
      );
      if (!completion.recorded) logger.warn({ deliveryId: d.id }, 'delivery lease lost before its outcome was recorded');
      if (completion.disabledSubscription)
        logger.info({ subscriptionId: d.subscriptionId }, 'subscription disabled after consecutive failures');
      this.#o.onAttempt?.(d, completion, result);
    } catch (err) {
      // The lease runs out and the delivery is tried again.
      logger.error({ err, deliveryId: d.id }, 'delivery attempt could not be processed');
    }
  }
}
