/**
 * The fan-out's floor (bench/src/fanout-floor.ts), in a process of its own as the webhooks service is: the least a
 * delivery pipeline fed by Kafka can do, with none of Assay's services running. It consumes the run lifecycle
 * topic (the event port of @assay/events, as the webhooks consumer does: three partitions at once, keys at once)
 * and, for each event, POSTs its body, signed per subscription as the dispatcher signs (fanout-post.ts), to the
 * event's project's subscriptions, at most `concurrency` at once, through an Agent with the sender's settings.
 *
 * Two modes, chosen per round:
 * - `kafka`: the events' hop and the POSTs, nothing stored (a pipeline that can lose every delivery);
 * - `rows`: what at-least-once delivery needs at the least: before the event's offset is committed, one statement
 *   inserts its deliveries (one row each, the body, a unique key on event and subscription for replays, the
 *   due-time index retries need), and the outcomes are written in batches (all that finished while the previous
 *   batch was written: one statement). No claims, leases, attempts' rows, subscription state or secret decryption.
 *
 * Driven over IPC: `{ setup }` once, `{ mode }` before a round; answers `{ ok }`. `{ seen: eventId }` answers whether an
 * event of no subscribed project (the bench's probe that the group consumes) has come.
 */
import { randomBytes } from 'node:crypto';
import { fromBinary } from '@bufbuild/protobuf';
import { Agent } from 'undici';
import { RunLifecycleEventSchema } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { createKafkaBus, Topics, type EventConsumer } from '@assay/events';
import { createPool, type Pool } from '@assay/db';
import { createLogger } from '@assay/logger';
import { agentOptions } from '@assay/webhooks/dist/domain/sender';
import { buildPayload } from '@assay/webhooks/dist/domain/payload';
import { signedPost } from './fanout-post';

export type FloorMode = 'kafka' | 'rows';

export interface FloorSubscription {
  id: string;
  projectId: string;
  url: string;
  secret: string;
}

export interface FloorSetup {
  brokers: string;
  databaseUrl: string;
  /** Its schema (the bench creates it: FLOOR_TABLE_SQL). */
  schema: string;
  subscriptions: FloorSubscription[];
  concurrency: number;
  timeoutMs: number;
  connections: number;
}

export type FloorRequest = { setup: FloorSetup } | { mode: FloorMode } | { seen: string };
export interface FloorAnswer {
  ok: true;
  seen?: boolean;
}

/** The floor's one table, in its own schema. */
export const FLOOR_TABLE_SQL = `
  CREATE TABLE deliveries (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subscription_id  text NOT NULL,
    event_id         text NOT NULL,
    payload          text NOT NULL,
    status           text NOT NULL DEFAULT 'pending',
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    status_code      integer,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (event_id, subscription_id)
  );
  CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';`;

interface Job {
  sub: FloorSubscription;
  body: string;
  deliveryId: string;
  rowId?: string;
}

let setup: FloorSetup;
let mode: FloorMode = 'rows';
let agent: Agent;
let pool: Pool;
let consumer: EventConsumer | undefined;
const byProject = new Map<string, FloorSubscription[]>();
/** Ids of the events of no subscribed project seen so far (the bench's probes). */
const probes = new Set<string>();

const queue: Job[] = [];
let inFlight = 0;
let outcomes: { id: string; ok: boolean }[] = [];
let recording: Promise<void> | undefined;

function pump(): void {
  while (inFlight < setup.concurrency && queue.length > 0) {
    const job = queue.shift()!;
    inFlight++;
    void signedPost(
      agent,
      { url: job.sub.url, secret: job.sub.secret, body: job.body, event: 'RUN_FINISHED', deliveryId: job.deliveryId },
      setup.timeoutMs,
    )
      .catch(() => false)
      .then((ok) => {
        inFlight--;
        if (job.rowId) record(job.rowId, ok);
        pump();
      });
  }
}

/** Outcomes that finish while a batch is written go together in the next one. */
function record(id: string, ok: boolean): void {
  outcomes.push({ id, ok });
  if (recording) return;
  recording = (async () => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (outcomes.length > 0) {
      const batch = outcomes;
      outcomes = [];
      await pool.query(
        `UPDATE deliveries d SET status = u.status, next_attempt_at = now() + interval '1 minute', status_code = u.code, updated_at = now()
           FROM unnest($1::bigint[], $2::text[], $3::int[]) AS u(id, status, code) WHERE d.id = u.id`,
        [batch.map((o) => o.id), batch.map((o) => (o.ok ? 'success' : 'pending')), batch.map((o) => (o.ok ? 200 : null))],
      );
    }
  })().finally(() => (recording = undefined));
}

async function handle(value: Buffer): Promise<void> {
  const e = fromBinary(RunLifecycleEventSchema, value);
  const subs = byProject.get(e.projectId);
  if (!subs) {
    probes.add(e.eventId);
    return;
  }
  const body = buildPayload(e, 'RUN_FINISHED');
  if (mode === 'kafka') {
    for (const sub of subs) queue.push({ sub, body, deliveryId: randomBytes(12).toString('hex') });
  } else {
    const { rows } = await pool.query(
      `INSERT INTO deliveries (subscription_id, event_id, payload) SELECT s, $2, $3 FROM unnest($1::text[]) AS s
       ON CONFLICT (event_id, subscription_id) DO NOTHING RETURNING id, subscription_id`,
      [subs.map((s) => s.id), e.eventId, body],
    );
    const sub = new Map(subs.map((s) => [s.id, s]));
    for (const r of rows) queue.push({ sub: sub.get(r.subscription_id)!, body, deliveryId: String(r.id), rowId: String(r.id) });
  }
  pump();
}

process.on('message', (m: FloorRequest) => {
  void (async () => {
    if ('setup' in m) {
      setup = m.setup;
      for (const s of setup.subscriptions) byProject.set(s.projectId, [...(byProject.get(s.projectId) ?? []), s]);
      // As the bench runs the webhooks service: WEBHOOK_ALLOW_PRIVATE_TARGETS=true (the receivers are local).
      agent = new Agent(agentOptions({ timeoutMs: setup.timeoutMs, allowPrivateTargets: true, connections: setup.connections }));
      pool = createPool({ connectionString: setup.databaseUrl, schema: setup.schema, max: 10, applicationName: 'fanout-floor' });
      const bus = createKafkaBus({
        brokers: setup.brokers.split(','),
        clientId: 'fanout-floor',
        logger: createLogger('fanout-floor', 'error'),
      });
      consumer = bus.consumer({
        groupId: 'fanout-floor',
        topics: [Topics.RUN_LIFECYCLE],
        fromBeginning: false,
        partitionsConcurrently: 3,
        keysConcurrently: true,
      });
      await consumer.start((c) => handle(c.value));
    } else if ('seen' in m) {
      process.send!({ ok: true, seen: probes.has(m.seen) } satisfies FloorAnswer);
      return;
    } else mode = m.mode;
    process.send!({ ok: true } satisfies FloorAnswer);
  })();
});
process.on(
  'disconnect',
  () =>
    void (async () => {
      await consumer?.stop();
      await pool?.end();
      await agent?.close();
      process.exit(0);
    })(),
);
