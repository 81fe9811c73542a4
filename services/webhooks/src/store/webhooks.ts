/**
 * SQL for subscriptions. Lock order everywhere: the subscription row (FOR NO KEY UPDATE, which does not block
 * the foreign-key checks of new delivery rows), then its deliveries.
 */
import type { PoolClient, Queryable } from '@assay/db';

export interface SubscriptionRow {
  id: string;
  projectId: string;
  url: string;
  events: string[];
  outcome: string;
  active: boolean;
  description: string;
  source: string;
  consecutiveFailures: number;
  disabledReason: string | null;
  lastDeliveryAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

// Never the secret: reads go through these columns only.
const COLUMNS = `id, project_id, url, events, outcome, active, description, source, consecutive_failures, disabled_reason,
                 last_delivery_at, created_at, updated_at`;

function toRow(r: Record<string, unknown>): SubscriptionRow {
  return {
    id: r.id as string,
    projectId: r.project_id as string,
    url: r.url as string,
    events: r.events as string[],
    outcome: r.outcome as string,
    active: r.active as boolean,
    description: r.description as string,
    source: r.source as string,
    consecutiveFailures: r.consecutive_failures as number,
    disabledReason: r.disabled_reason as string | null,
    lastDeliveryAt: r.last_delivery_at as Date | null,
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
  };
}

/**
 * Inserts the subscription unless the project already has `max`; undefined when it has. The count and the
 * insert run under a per-project advisory lock (taken in the caller's transaction), so concurrent creates
 * cannot pass the cap together.
 */
export async function insertSubscription(
  q: Queryable,
  max: number,
  s: {
    id: string;
    projectId: string;
    url: string;
    events: string[];
    outcome: string;
    description: string;
    source: string;
    secretCiphertext: string;
    createdBy: string | null;
  },
): Promise<SubscriptionRow | undefined> {
  await q.query(`SELECT pg_advisory_xact_lock(hashtext('webhooks:subscriptions:' || $1))`, [s.projectId]);
  if ((await countSubscriptions(q, s.projectId)) >= max) return undefined;
  const { rows } = await q.query(
    `INSERT INTO subscriptions (id, project_id, url, events, outcome, description, source, secret_ciphertext, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
    [s.id, s.projectId, s.url, s.events, s.outcome, s.description, s.source, s.secretCiphertext, s.createdBy],
  );
  return toRow(rows[0]);
}

export async function findSubscription(q: Queryable, projectId: string, id: string, lock = false): Promise<SubscriptionRow | undefined> {
  const { rows } = await q.query(
    `SELECT ${COLUMNS} FROM subscriptions WHERE project_id = $1 AND id = $2${lock ? ' FOR NO KEY UPDATE' : ''}`,
    [projectId, id],
  );
  return rows[0] ? toRow(rows[0]) : undefined;
}

export async function countSubscriptions(q: Queryable, projectId: string): Promise<number> {
  const { rows } = await q.query(`SELECT count(*)::int AS n FROM subscriptions WHERE project_id = $1`, [projectId]);
  return rows[0].n;
}

/** Oldest first, so pages stay stable while subscriptions are added. */
export async function listSubscriptions(q: Queryable, projectId: string, limit: number, offset: number): Promise<SubscriptionRow[]> {
  const { rows } = await q.query(`SELECT ${COLUMNS} FROM subscriptions WHERE project_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3`, [
    projectId,
    limit,
    offset,
  ]);
  return rows.map(toRow);
}

export interface SubscriptionPatch {
  url?: string;
  events?: string[];
  outcome?: string;
  description?: string;
  active?: boolean;
  disabledReason?: string | null;
  consecutiveFailures?: number;
}

export async function updateSubscription(c: PoolClient, id: string, patch: SubscriptionPatch): Promise<SubscriptionRow> {
  const columns: Record<keyof SubscriptionPatch, string> = {
    url: 'url',
    events: 'events',
    outcome: 'outcome',
    description: 'description',
    active: 'active',
    disabledReason: 'disabled_reason',
    consecutiveFailures: 'consecutive_failures',
  };
  const sets: string[] = [];
  const values: unknown[] = [id];
  for (const [key, column] of Object.entries(columns) as [keyof SubscriptionPatch, string][]) {
    if (patch[key] === undefined) continue;
    values.push(patch[key]);
    sets.push(`${column} = $${values.length}`);
  }
  sets.push('updated_at = now()');
  const { rows } = await c.query(`UPDATE subscriptions SET ${sets.join(', ')} WHERE id = $1 RETURNING ${COLUMNS}`, values);
  return toRow(rows[0]);
}

export async function deleteSubscription(q: Queryable, projectId: string, id: string): Promise<boolean> {
  const { rowCount } = await q.query(`DELETE FROM subscriptions WHERE project_id = $1 AND id = $2`, [projectId, id]);
  return (rowCount ?? 0) > 0;
}

/**
 * A disabled subscription's pending retries stop: its pending deliveries that are not in flight become
 * `failed` (one in flight records its outcome, then stops the same way).
 */
export async function stopPendingDeliveries(c: PoolClient, subscriptionId: string): Promise<number> {
  const { rowCount } = await c.query(
    `UPDATE deliveries
        SET status = 'failed', next_attempt_at = NULL, updated_at = now(),
            error = CASE WHEN error IS NULL THEN 'not sent: the subscription was disabled'
                         ELSE error || ' (retries stopped: the subscription was disabled)' END
      WHERE subscription_id = $1 AND status = 'pending' AND lease_id IS NULL`,
    [subscriptionId],
  );
  return rowCount ?? 0;
}

/** Subscription ids after `after` in id order, `limit` of them: the retention sweeper walks every subscription. */
export async function subscriptionIdsAfter(q: Queryable, after: string, limit: number): Promise<string[]> {
  const { rows } = await q.query(`SELECT id FROM subscriptions WHERE id > $1 ORDER BY id LIMIT $2`, [after, limit]);
  return rows.map((r) => r.id as string);
}
