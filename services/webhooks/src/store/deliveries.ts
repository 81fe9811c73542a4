/** SQL for deliveries and their attempts: created by the consumer, claimed and completed by the dispatcher. */
import { randomBytes } from 'node:crypto';
import type { PoolClient, Queryable } from '@assay/db';
import { DISABLE_AFTER_CONSECUTIVE_FAILURES } from '@assay/contracts/webhooks/values';
import { stopPendingDeliveries } from './webhooks';

export interface DeliveryRow {
  id: string;
  subscriptionId: string;
  event: string;
  runId: string;
  status: string;
  attempt: number;
  nextAttemptAt: Date | null;
  statusCode: number | null;
  responseMs: number | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, subscription_id, event, run_id, status, attempt, next_attempt_at, lease_id, status_code, response_ms, error,
                 created_at, updated_at`;

function toRow(r: Record<string, unknown>): DeliveryRow {
  return {
    id: r.id as string,
    subscriptionId: r.subscription_id as string,
    event: r.event as string,
    runId: r.run_id as string,
    status: r.status as string,
    attempt: r.attempt as number,
    // While an attempt is in flight the column holds the lease's end, which is no planned attempt.
    nextAttemptAt: r.lease_id ? null : (r.next_attempt_at as Date | null),
    statusCode: r.status_code as number | null,
    responseMs: r.response_ms as number | null,
    error: r.error as string | null,
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
  };
}

/** SQL expression for a new id in the shape of `newId()` (time prefix + random, 24 hex digits). */
const NEW_ID_SQL = `lpad(to_hex(floor(extract(epoch FROM clock_timestamp()))::bigint), 8, '0')
                    || left(encode(sha256(gen_random_uuid()::text::bytea), 'hex'), 16)`;

export interface EventForDeliveries {
  eventId: string;
  projectId: string;
  event: 'RUN_STARTED' | 'RUN_FINISHED';
  runId: string;
  failed: boolean;
  eventAt: Date;
  payload: string;
  now: Date;
}

/** Rows `createDeliveriesForEvent` may claim as it creates them (the dispatcher's free room), and their lease. */
export interface ClaimOnCreate {
  limit: number;
  leaseUntil: Date;
}

/**
 * One delivery per matching active subscription, in one statement; the (event, subscription) key makes a
 * replayed event a no-op. A subscription only receives events that happened after it was created.
 * `conditions.outcome` filters RUN_FINISHED only. With `claim`, up to `claim.limit` of the new rows are created
 * claimed (attempt 1 counted, leased until `claim.leaseUntil`, exactly as `claimDue` would leave them) and returned,
 * so the dispatcher sends them without a claim's round trip; the rest are due at once. Returns the number of new rows.
 */
export async function createDeliveriesForEvent(
  q: Queryable,
  e: EventForDeliveries,
  claim: ClaimOnCreate,
): Promise<{ created: number; claimed: ClaimedDelivery[] }>;
export async function createDeliveriesForEvent(q: Queryable, e: EventForDeliveries): Promise<number>;
export async function createDeliveriesForEvent(
  q: Queryable,
  e: EventForDeliveries,
  claim?: ClaimOnCreate,
): Promise<number | { created: number; claimed: ClaimedDelivery[] }> {
  const leaseId = randomBytes(12).toString('hex');
  const { rows } = await q.query(
    `WITH ins AS (
       INSERT INTO deliveries (id, subscription_id, project_id, event_id, event, run_id, payload, next_attempt_at, event_at, attempt, lease_id)
       SELECT ${NEW_ID_SQL}, s.id, s.project_id, $2, $3, $4, $5,
              CASE WHEN s.rn <= $9::int THEN $10::timestamptz ELSE $6 END, $7,
              CASE WHEN s.rn <= $9::int THEN 1 ELSE 0 END,
              CASE WHEN s.rn <= $9::int THEN $11::text END
         FROM (SELECT s.*, row_number() OVER (ORDER BY s.id) AS rn
                 FROM subscriptions s
                WHERE s.project_id = $1 AND s.active AND $3 = ANY (s.events) AND s.created_at <= $7
                  AND ($3 = 'RUN_STARTED' OR s.outcome = 'any' OR (s.outcome = 'failed' AND $8) OR (s.outcome = 'passed' AND NOT $8))) s
       ON CONFLICT (event_id, subscription_id) DO NOTHING
       RETURNING id, subscription_id, attempt, lease_id
     )
     SELECT ins.id, ins.subscription_id, ins.attempt, ins.lease_id, s.url, s.secret_ciphertext, s.active
       FROM ins JOIN subscriptions s ON s.id = ins.subscription_id`,
    [
      e.projectId,
      e.eventId,
      e.event,
      e.runId,
      e.payload,
      e.now,
      e.eventAt,
      e.failed,
      claim?.limit ?? 0,
      claim?.leaseUntil ?? null,
      leaseId,
    ],
  );
  if (!claim) return rows.length;
  const claimed: ClaimedDelivery[] = rows
    .filter((r) => r.lease_id !== null)
    .map((r) => ({
      id: r.id,
      subscriptionId: r.subscription_id,
      event: e.event,
      payload: e.payload,
      attempt: r.attempt,
      leaseId,
      interrupted: false,
      url: r.url,
      secretCiphertext: r.secret_ciphertext,
      active: r.active,
      before: { nextAttemptAt: e.now, leaseId: null },
    }));
  return { created: rows.length, claimed };
}

export async function countDeliveries(q: Queryable, subscriptionId: string, status?: string): Promise<number> {
  const { rows } = await q.query(`SELECT count(*) AS n FROM deliveries WHERE subscription_id = $1 AND ($2::text IS NULL OR status = $2)`, [
    subscriptionId,
    status ?? null,
  ]);
  return rows[0].n;
}

/** Newest first. */
export async function listDeliveries(q: Queryable, subscriptionId: string, status: string | undefined, limit: number, offset: number) {
  const { rows } = await q.query(
    `SELECT ${COLUMNS} FROM deliveries WHERE subscription_id = $1 AND ($2::text IS NULL OR status = $2)
      ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
    [subscriptionId, status ?? null, limit, offset],
  );
  return rows.map(toRow);
}

export interface ClaimedDelivery {
  id: string;
  subscriptionId: string;
  event: string;
  payload: string;
  /** The number of this attempt (already counted). */
  attempt: number;
  leaseId: string;
  /** The previous attempt was claimed but never recorded (its dispatcher died). */
  interrupted: boolean;
  url: string;
  secretCiphertext: string;
  active: boolean;
  /** The row's due time and lease before this claim: what `releaseClaims` puts back. */
  before: { nextAttemptAt: Date; leaseId: string | null };
}

/**
 * Claims up to `limit` due deliveries (FOR UPDATE SKIP LOCKED, so replicas never take the same row): counts
 * the attempt and leases the row until `leaseUntil`. A lease that ran out (its holder died mid-attempt) makes
 * the row due again, so a delivery is never lost; at worst one attempt is sent twice, with the same id.
 */
export async function claimDue(q: Queryable, now: Date, limit: number, leaseUntil: Date): Promise<ClaimedDelivery[]> {
  const leaseId = randomBytes(12).toString('hex');
  const { rows } = await q.query(
    `WITH due AS (
        SELECT id, lease_id AS old_lease, next_attempt_at AS old_due FROM deliveries
         WHERE status = 'pending' AND next_attempt_at <= $1
         ORDER BY next_attempt_at LIMIT $2
         FOR UPDATE SKIP LOCKED
     )
     UPDATE deliveries d
        SET attempt = d.attempt + 1, next_attempt_at = $3, lease_id = $4, updated_at = now()
       FROM due, subscriptions s
      WHERE d.id = due.id AND s.id = d.subscription_id
     RETURNING d.id, d.subscription_id, d.event, d.payload, d.attempt, due.old_lease, due.old_due, s.url, s.secret_ciphertext, s.active`,
    [now, limit, leaseUntil, leaseId],
  );
  return rows.map((r) => ({
    id: r.id,
    subscriptionId: r.subscription_id,
    event: r.event,
    payload: r.payload,
    attempt: r.attempt,
    leaseId,
    interrupted: r.old_lease !== null,
    url: r.url,
    secretCiphertext: r.secret_ciphertext,
    active: r.active,
    before: { nextAttemptAt: r.old_due, leaseId: r.old_lease },
  }));
}

/**
 * Undoes claims whose attempts were never started (the dispatcher claims ahead of its free slots, and gives
 * back what waited too long or what it holds when it stops): the attempt is uncounted and the due time and
 * lease are what they were, so the row is due again as it was (a lease that had run out still marks its lost
 * attempt). Only rows still under the given leases are touched. Returns the number of rows given back.
 */
export async function releaseClaims(q: Queryable, claims: ClaimedDelivery[]): Promise<number> {
  if (claims.length === 0) return 0;
  const { rowCount } = await q.query(
    `UPDATE deliveries d
        SET attempt = d.attempt - 1, next_attempt_at = u.due, lease_id = u.old_lease, updated_at = now()
       FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[]) AS u(id, lease_id, due, old_lease)
      WHERE d.id = u.id AND d.lease_id = u.lease_id`,
    [claims.map((c) => c.id), claims.map((c) => c.leaseId), claims.map((c) => c.before.nextAttemptAt), claims.map((c) => c.before.leaseId)],
  );
  return rowCount ?? 0;
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  responseMs: number | null;
  error: string | null;
  startedAt: Date;
}

export async function recordInterruptedAttempt(q: Queryable, deliveryId: string, attempt: number, at: Date): Promise<void> {
  await q.query(
    `INSERT INTO delivery_attempts (delivery_id, attempt, status, error, started_at, finished_at)
     VALUES ($1, $2, 'failed', 'interrupted: the dispatcher stopped before the outcome was recorded', $3, $3)
     ON CONFLICT DO NOTHING`,
    [deliveryId, attempt, at],
  );
}

export interface CompletionResult {
  /** False when the lease was lost (the row was taken over or deleted): nothing was written. */
  recorded: boolean;
  status?: 'pending' | 'success' | 'failed';
  disabledSubscription?: boolean;
}

/** One attempt to record: the delivery as claimed, what the attempt gave, and what comes next. */
export interface Completion {
  d: { id: string; subscriptionId: string; attempt: number; leaseId: string };
  outcome: AttemptOutcome;
  plan: { now: Date; maxAttempts: number; nextAttemptAt: Date | null };
}

interface SubscriptionState {
  active: boolean;
  failures: number;
  lastDeliveryAt?: Date;
  /** Set when an attempt of this batch disabled it. */
  disabledReason?: string;
}

/**
 * Records attempts in one transaction, in a fixed number of statements whatever their number (the dispatcher
 * hands over every attempt that finished while the previous batch was being written). Each attempt is judged
 * exactly as if it were recorded alone, in the order given: its attempt row; the delivery (success; or pending
 * again after the next delay; or failed after the last attempt or when the subscription is off); and the
 * subscription's counter (reset on success; +1 on failure, and disabled at 5 consecutive failed attempts,
 * which stops its other pending deliveries). An attempt whose lease was lost (or whose subscription is gone)
 * writes nothing. Lock order as everywhere: the subscriptions (by id), then their deliveries (by id).
 */
export async function completeAttempts(c: PoolClient, items: Completion[]): Promise<CompletionResult[]> {
  if (items.length === 0) return [];
  const subIds = [...new Set(items.map((i) => i.d.subscriptionId))].sort();
  const subs = await c.query(
    `SELECT id, active, consecutive_failures FROM subscriptions WHERE id = ANY ($1::text[]) ORDER BY id FOR NO KEY UPDATE`,
    [subIds],
  );
  const state = new Map<string, SubscriptionState>(
    subs.rows.map((r) => [r.id as string, { active: r.active as boolean, failures: r.consecutive_failures as number }]),
  );
  const owned = await c.query(
    `SELECT id FROM deliveries
      WHERE (id, lease_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
      ORDER BY id FOR UPDATE`,
    [items.map((i) => i.d.id), items.map((i) => i.d.leaseId)],
  );
  const ownedIds = new Set(owned.rows.map((r) => r.id as string));

  const results: CompletionResult[] = [];
  const written: (Completion & { status: string; nextAttemptAt: Date | null; error: string | null })[] = [];
  const disabled: string[] = [];
  for (const { d, outcome, plan } of items) {
    const sub = state.get(d.subscriptionId);
    if (!sub || !ownedIds.has(d.id)) {
      results.push({ recorded: false });
      continue;
    }
    let disabledSubscription = false;
    sub.lastDeliveryAt = plan.now;
    if (outcome.ok) {
      if (sub.active) sub.failures = 0;
    } else if (sub.active) {
      sub.failures += 1;
      if (sub.failures >= DISABLE_AFTER_CONSECUTIVE_FAILURES) {
        sub.active = false;
        sub.disabledReason = `disabled after ${sub.failures} consecutive failed delivery attempts (last: ${outcome.error ?? 'failed'})`;
        disabled.push(d.subscriptionId);
        disabledSubscription = true;
      }
    }

    let status: 'pending' | 'success' | 'failed';
    let nextAttemptAt: Date | null = null;
    let error = outcome.error;
    if (outcome.ok) status = 'success';
    else if (!sub.active) {
      status = 'failed';
      if (d.attempt < plan.maxAttempts) error = `${outcome.error ?? 'failed'} (retries stopped: the subscription was disabled)`;
    } else if (d.attempt >= plan.maxAttempts || plan.nextAttemptAt === null) status = 'failed';
    else {
      status = 'pending';
      nextAttemptAt = plan.nextAttemptAt;
    }
    written.push({ d, outcome, plan, status, nextAttemptAt, error });
    results.push({ recorded: true, status, disabledSubscription });
  }
  if (written.length === 0) return results;

  const touched = [...state].filter(([, s]) => s.lastDeliveryAt !== undefined);
  // The three writes in one statement (one round trip rather than three; they touch different tables).
  await c.query(
    `WITH attempts AS (
       INSERT INTO delivery_attempts (delivery_id, attempt, status, status_code, response_ms, error, started_at, finished_at)
       SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::int[], $6::text[], $7::timestamptz[], $8::timestamptz[])
       ON CONFLICT (delivery_id, attempt) DO NOTHING
     ), subs AS (
       UPDATE subscriptions s
          SET last_delivery_at = u.last_delivery_at, consecutive_failures = u.failures, active = u.active,
              disabled_reason = CASE WHEN u.disabled_reason IS NULL THEN s.disabled_reason ELSE u.disabled_reason END,
              updated_at = CASE WHEN u.disabled_reason IS NULL THEN s.updated_at ELSE now() END
         FROM unnest($9::text[], $10::timestamptz[], $11::int[], $12::boolean[], $13::text[])
              AS u(id, last_delivery_at, failures, active, disabled_reason)
        WHERE s.id = u.id
     )
     UPDATE deliveries d
        SET status = u.status, next_attempt_at = u.next_attempt_at, lease_id = NULL, status_code = u.status_code,
            response_ms = u.response_ms, error = u.error, updated_at = now()
       FROM unnest($1::text[], $14::text[], $15::timestamptz[], $4::int[], $5::int[], $16::text[])
            AS u(id, status, next_attempt_at, status_code, response_ms, error)
      WHERE d.id = u.id`,
    [
      written.map((w) => w.d.id),
      written.map((w) => w.d.attempt),
      written.map((w) => (w.outcome.ok ? 'success' : 'failed')),
      written.map((w) => w.outcome.statusCode),
      written.map((w) => w.outcome.responseMs),
      written.map((w) => w.outcome.error),
      written.map((w) => w.outcome.startedAt),
      written.map((w) => w.plan.now),
      touched.map(([id]) => id),
      touched.map(([, s]) => s.lastDeliveryAt),
      touched.map(([, s]) => s.failures),
      touched.map(([, s]) => s.active),
      touched.map(([, s]) => s.disabledReason ?? null),
      written.map((w) => w.status),
      written.map((w) => w.nextAttemptAt),
      written.map((w) => w.error),
    ],
  );
  for (const id of disabled) await stopPendingDeliveries(c, id);
  return results;
}

/** A claimed delivery that is not sent (its subscription is off, or its attempts ran out while interrupted). */
export async function failWithoutSending(c: PoolClient, d: { id: string; leaseId: string; attempt: number }, error: string): Promise<void> {
  await c.query(
    `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, lease_id = NULL, attempt = $3, error = $4, updated_at = now()
      WHERE id = $1 AND lease_id = $2`,
    [d.id, d.leaseId, d.attempt, error],
  );
}

/**
 * Retention: deletes up to `limit` finished (success or failed) deliveries of one subscription whose event came
 * before `before`, their attempts with them (ON DELETE CASCADE). A pending delivery is kept whatever its age: its
 * retries are still due, and only rows no worker touches any more are deleted. By subscription, so the
 * (subscription_id, created_at) index finds them and the fan-out's inserts keep no index for retention alone.
 * Returns how many were deleted.
 */
export async function deleteFinishedBefore(q: Queryable, subscriptionId: string, before: Date, limit: number): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM deliveries WHERE id IN (
       SELECT id FROM deliveries WHERE subscription_id = $1 AND created_at < $2 AND status <> 'pending' LIMIT $3)`,
    [subscriptionId, before, limit],
  );
  return rowCount ?? 0;
}
