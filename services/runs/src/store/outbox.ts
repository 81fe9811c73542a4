/**
 * The transactional outbox: a lifecycle event is a row written by the same transaction as the run's state
 * change, so no event exists without its committed change and none is lost while Kafka is down. The relay
 * (workers/outbox-relay) publishes pending rows in `seq` order and marks them.
 */
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { newId, type Queryable } from '@assay/db';
import { RunEventType, RunLifecycleEventSchema } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import type { RunRow } from './test-runs';
import { toSnapshot, type Links } from '../domain/snapshot';

export type EventType = 'RUN_STARTED' | 'RUN_FINISHED';

/** The event of `run`'s new state, occurred at `now`, written in the caller's transaction. */
export async function enqueueRunEvent(db: Queryable, type: EventType, run: RunRow, links: Links, now: Date): Promise<string> {
  const eventId = newId();
  const event = create(RunLifecycleEventSchema, {
    eventId,
    type: type === 'RUN_STARTED' ? RunEventType.RUN_STARTED : RunEventType.RUN_FINISHED,
    occurredAt: timestampFromDate(now),
    projectId: run.projectId,
    orgId: run.orgId,
    run: toSnapshot(run, links, now),
  });
  await db.query('INSERT INTO outbox (event_id, run_id, type, payload) VALUES ($1, $2, $3, $4)', [
    eventId,
    run.id,
    type,
    Buffer.from(toBinary(RunLifecycleEventSchema, event)),
  ]);
  return eventId;
}

export interface OutboxRow {
  seq: number;
  eventId: string;
  runId: string;
  type: string;
  payload: Buffer;
}

/** The relay's transaction-scoped advisory lock (one relay pass at a time across replicas). */
const RELAY_LOCK = `hashtext('assay:runs:outbox-relay')`;

/** One relay at a time across replicas: true when this transaction took the relay's lock (held until it ends). */
export async function tryRelayLock(db: Queryable): Promise<boolean> {
  const { rows } = await db.query(`SELECT pg_try_advisory_xact_lock(${RELAY_LOCK}) AS locked`);
  return rows[0].locked === true;
}

/**
 * Drops a run's events that were not published yet (the run is being deleted). Waits for the relay's lock first,
 * so no pass is publishing them meanwhile.
 */
export async function dropPendingEvents(db: Queryable, runId: string): Promise<number> {
  await db.query(`SELECT pg_advisory_xact_lock(${RELAY_LOCK})`);
  const { rowCount } = await db.query('DELETE FROM outbox WHERE run_id = $1 AND published_at IS NULL', [runId]);
  return rowCount ?? 0;
}

/** Pending events in order; the caller holds the relay lock. */
export async function pendingEvents(db: Queryable, limit: number): Promise<OutboxRow[]> {
  const { rows } = await db.query(
    'SELECT seq, event_id, run_id, type, payload FROM outbox WHERE published_at IS NULL ORDER BY seq LIMIT $1',
    [limit],
  );
  return rows.map((r) => ({ seq: Number(r.seq), eventId: r.event_id, runId: r.run_id, type: r.type, payload: r.payload }));
}

export async function markPublished(db: Queryable, seqs: number[]): Promise<void> {
  await db.query('UPDATE outbox SET published_at = now() WHERE seq = ANY($1::bigint[])', [seqs]);
}

/** Published rows older than the retention are deleted (consumers dedupe on event_id meanwhile). */
export async function prunePublished(db: Queryable, olderThan: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM outbox WHERE published_at IS NOT NULL AND published_at < $1', [olderThan]);
  return rowCount ?? 0;
}
