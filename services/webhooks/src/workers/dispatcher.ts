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
 * Claims run ahead of the slots: up to CLAIM_AHEAD × `concurrency` claimed deliveries wait in memory for a
 * slot, so a slot that frees starts the next attempt at once instead of after a claim's round trip, and
 * claims (at most CLAIMS_IN_FLIGHT_MAX at once, of at least half the slots' worth) overlap the POSTs. One that
 * waited READY_MAX_WAIT_MS is given back (`releaseClaims` undoes its claim), as is every waiting one at stop.
 * New deliveries skip the claim: the consumer creates an event's rows claimed (all of them, a project's
 * subscriptions at most, while CREATE_AHEAD × `concurrency` claimed deliveries do not already wait), in the room
 * `reserve` holds for them, and hands them over as if a claim had returned them.
 *
 * Crash safety: a claim counts the attempt and leases the row for `timeout + LEASE_MARGIN_MS`; the outcome
 * is written only by the lease holder. A dispatcher killed mid-attempt leaves a lease that runs out, the row
 * becomes due again, and the next claim records the lost attempt as interrupted before sending again with
 * the same `X-Service-Delivery`. Delivery is therefore at least once, deduplicable by that id. A dispatcher
 * killed (not stopped) with claimed deliveries still waiting for a slot leaves them the same way: their
 * attempt, never sent, is recorded as interrupted too (it cannot be told from one that was); so is that of a
 * delivery created claimed whose process died before sending it.
 *
 * Time is injected (`clock`), and so is the schedule, so tests run the 5-attempt path in milliseconds.
 */
import { MAX_SUBSCRIPTIONS_PER_PROJECT } from '@assay/contracts/webhooks/values';
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
  releaseClaims,
  type ClaimOnCreate,
  type ClaimedDelivery,
  type Completion,
  type CompletionResult,
} from '../store/deliveries';

export const LEASE_MARGIN_MS = 5000;
/** Outcomes written in one transaction at most. */
export const RECORD_BATCH_MAX = 256;
/** Deliveries claimed ahead of the free slots, at most, in multiples of the concurrency. */
export const CLAIM_AHEAD = 2;
/**
 * Deliveries created claimed that may wait for a slot, at most, in multiples of the concurrency: more than claims
 * take, since the consumer writes those rows anyway and claiming them later costs another update each (in
 * webhook-fanout, four projects' events at once created 200 rows of which 104 waited for claims with 2).
 */
export const CREATE_AHEAD = 6;
/** Claims on their way at once. */
export const CLAIMS_IN_FLIGHT_MAX = 2;
/**
 * How long a delivery claimed ahead may wait for a slot before it is given back (`releaseClaims`): far below the
 * lease's margin beyond the timeout, so an attempt started from the queue always ends within its lease.
 */
export const READY_MAX_WAIT_MS = 1000;

/** Waits for the event loop's next turn: answers that arrived together free their slots together, for one claim. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Room the consumer may fill with deliveries it claims as it creates them; `hand` gives them over (or none, on failure). */
export interface Reservation extends ClaimOnCreate {
  hand(claimed: ClaimedDelivery[]): void;
}

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
  /** Claims on their way, and the rows they asked for. */
  readonly #claims = new Set<Promise<boolean>>();
  #reserved = 0;
  /** Deliveries claimed ahead, waiting for a slot (oldest first), with when they were claimed. */
  #ready: { d: ClaimedDelivery; at: number }[] = [];
  #stopping = false;
  readonly #loop: Loop;
  /** Outcomes waiting for the recorder, in the order their attempts finished. */
  #toRecord: Finished[] = [];
  #recording: Promise<void> | undefined;
  /** The batch being written. */
  #batch: Promise<void> | undefined;
  /** Wakes so far (new deliveries exist), and the count when a claim started that came back short (nothing more due). */
  #wakes = 0;
  #dryAt: { wakes: number; at: number } | undefined;

  constructor(opts: DispatcherOptions) {
    this.#o = opts;
    this.#clock = opts.clock;
    this.#loop = new Loop(this.name, () => this.#tick(), opts.pollIntervalMs, opts.logger);
  }

  get maxAttempts(): number {
    return this.#o.retryDelaysSeconds.length + 1;
  }

  /**
   * Room for up to a project's subscriptions that the consumer claims as it creates them (`createDeliveriesForEvent`
   * with a claim), held until it hands them over: new deliveries start without a claim's round trip (in
   * webhook-fanout a claim took 5-18 ms between the rows' insert and the first POST). Undefined when there is no room.
   */
  reserve(): Reservation | undefined {
    const { concurrency } = this.#o;
    const room = (1 + CREATE_AHEAD) * concurrency - this.#inFlight.size - this.#ready.length - this.#reserved;
    const limit = Math.min(MAX_SUBSCRIPTIONS_PER_PROJECT, room);
    if (this.#stopping || limit <= 0) return undefined;
    this.#reserved += limit;
    let handed = false;
    return {
      limit,
      leaseUntil: new Date(this.#clock().getTime() + this.#o.timeoutMs + LEASE_MARGIN_MS),
      hand: (claimed) => {
        if (handed) return;
        handed = true;
        this.#reserved -= limit;
        const at = performance.now();
        for (const d of claimed) this.#ready.push({ d, at });
        if (this.#stopping) void this.#release(this.#ready.splice(0).map((r) => r.d));
        else this.#startReady();
      },
    };
  }

  /** Asks the loop to look for due deliveries now (new deliveries were created). */
  wake(): void {
    this.#wakes++;
    this.#loop.kick();
  }

  /**
   * A claim came back short and nothing was created since, within a poll interval: claiming again as each attempt
   * ends finds nothing (in webhook-fanout 5-8 empty claims a round, next to the last batches' recording).
   */
  #dry(): boolean {
    const d = this.#dryAt;
    return d !== undefined && d.wakes === this.#wakes && performance.now() - d.at < this.#o.pollIntervalMs;
  }

  start(): Promise<void> {
    return this.#loop.start();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#loop.stop();
    await Promise.allSettled([...this.#claims]);
    // What waits for a slot is given back (another replica takes it without waiting for the lease); the
    // attempts in hand finish (bounded by the timeout) and are recorded.
    await this.#release(this.#ready.splice(0).map((r) => r.d));
    await Promise.allSettled([...this.#inFlight]);
    while (this.#recording) await this.#recording;
  }

  /**
   * Keeps every slot busy: a freed slot takes the oldest delivery claimed ahead, and the dispatcher claims up to
   * CLAIM_AHEAD × `concurrency` deliveries beyond its slots. A claim asks for at least half the slots' worth (or
   * anything, when nothing waits), at most CLAIMS_IN_FLIGHT_MAX at once; a slot that frees while one is on its way
   * ends the tick, so the next claim need not wait for it. Busy (look again at once) when a claim got all it asked
   * for; with no room it waits for an attempt or a claim to finish, and with a full batch of outcomes waiting for
   * the recorder, for the batch it is writing. Deliveries that waited READY_MAX_WAIT_MS for a slot are given back.
   */
  async #tick(): Promise<boolean> {
    const { concurrency } = this.#o;
    this.#startReady();
    const fresh = this.#ready.findIndex((r) => performance.now() - r.at < READY_MAX_WAIT_MS);
    if (fresh !== 0) await this.#release(this.#ready.splice(0, fresh === -1 ? this.#ready.length : fresh).map((r) => r.d));
    const room = (1 + CLAIM_AHEAD) * concurrency - this.#inFlight.size - this.#ready.length - this.#reserved;
    const worth = this.#ready.length === 0 && this.#reserved === 0 ? 1 : Math.ceil(concurrency / 2);
    if (room < worth || this.#claims.size >= CLAIMS_IN_FLIGHT_MAX || this.#dry()) {
      if (this.#inFlight.size + this.#claims.size === 0) return false;
      await Promise.race([...this.#inFlight, ...this.#claims]);
      await nextTurn();
      return true;
    }
    if (this.#toRecord.length >= RECORD_BATCH_MAX && this.#batch) {
      await this.#batch;
      return true;
    }
    const claim = this.#claim(room);
    if (this.#inFlight.size === 0) return claim;
    return Promise.race([
      claim,
      Promise.race(this.#inFlight)
        .then(nextTurn)
        .then(() => true),
    ]);
  }

  /** Claims up to `n` due deliveries, starts as many as slots are free and queues the rest; true when it got `n`. */
  #claim(n: number): Promise<boolean> {
    this.#reserved += n;
    const wakes = this.#wakes;
    const claim = (async () => {
      try {
        const now = this.#clock();
        const claimed = await claimDue(this.#o.pool, now, n, new Date(now.getTime() + this.#o.timeoutMs + LEASE_MARGIN_MS));
        const at = performance.now();
        for (const d of claimed) this.#ready.push({ d, at });
        this.#startReady();
        if (claimed.length < n) this.#dryAt = { wakes, at: performance.now() };
        return claimed.length === n;
      } finally {
        this.#reserved -= n;
      }
    })();
    this.#claims.add(claim);
    // A failed claim fails the tick that waits for it (the loop backs off); one no tick waits for is tried again.
    claim.then(
      () => this.#claims.delete(claim),
      () => this.#claims.delete(claim),
    );
    return claim;
  }

  /** Starts claimed deliveries while slots are free; one that waited READY_MAX_WAIT_MS is given back instead. */
  #startReady(): void {
    const stale: ClaimedDelivery[] = [];
    while (!this.#stopping && this.#inFlight.size < this.#o.concurrency && this.#ready.length > 0) {
      const { d, at } = this.#ready.shift()!;
      if (performance.now() - at >= READY_MAX_WAIT_MS) stale.push(d);
      else this.#track(this.#process(d));
    }
    void this.#release(stale);
  }

  async #release(claims: ClaimedDelivery[]): Promise<void> {
    if (claims.length === 0) return;
    try {
      await releaseClaims(this.#o.pool, claims);
      // Due again: worth a claim.
      this.#dryAt = undefined;
    } catch (err) {
      // Their leases run out and they are claimed again (their unsent attempt recorded as interrupted).
      this.#o.logger.warn({ err, deliveries: claims.length }, 'claimed deliveries could not be given back');
    }
  }

  #track(p: Promise<void>): void {
    this.#inFlight.add(p);
    void p.finally(() => {
      this.#inFlight.delete(p);
      this.#startReady();
      this.#loop.kick();
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
        await nextTurn();
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
