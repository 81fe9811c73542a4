/**
 * Recording attempts in batches (store/deliveries.ts `completeAttempts`, as the dispatcher's recorder calls it):
 * a batch writes exactly what its attempts write when recorded one at a time, in the same order — the attempt
 * rows, each delivery's status, next attempt and error, each subscription's consecutive failures, its
 * auto-disable at 5 and the stop of its other pending deliveries — and an attempt whose lease was lost writes
 * nothing. Against a schema of its own.
 */
import { randomBytes } from 'node:crypto';
import { withTransaction } from '@assay/db';
import { testSchema, type TestSchema } from '@assay/testkit';
import { MIGRATIONS_DIR } from '../../src/service';
import {
  claimDue,
  completeAttempts,
  createDeliveriesForEvent,
  releaseClaims,
  type ClaimedDelivery,
  type Completion,
} from '../../src/store/deliveries';

let db: TestSchema;

beforeAll(async () => {
  db = await testSchema(MIGRATIONS_DIR, 'webhooks-deliveries');
});
afterAll(() => db.drop());

const T0 = Date.parse('2026-11-26T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

interface World {
  projectId: string;
  /** Subscription ids: S0 fresh, S1 with 3 consecutive failures already. */
  subs: [string, string];
  /** claimed[s][e]: the claimed delivery of subscription s for event e (0..3). */
  claimed: ClaimedDelivery[][];
}

async function world(): Promise<World> {
  const projectId = randomBytes(12).toString('hex');
  const subs: [string, string] = [randomBytes(12).toString('hex'), randomBytes(12).toString('hex')];
  for (const [i, id] of subs.entries())
    await db.pool.query(
      `INSERT INTO subscriptions (id, project_id, url, events, secret_ciphertext, consecutive_failures, created_at, updated_at)
       VALUES ($1, $2, 'https://hooks.example.test/a', '{RUN_FINISHED}', 'v1.x.y.z', $3, $4, $4)`,
      [id, projectId, i === 1 ? 3 : 0, at(-60000)],
    );
  return { projectId, subs, claimed: [[], []] };
}

const event = (w: World, e: number) =>
  createDeliveriesForEvent(db.pool, {
    eventId: `${w.projectId}-${e}`,
    projectId: w.projectId,
    event: 'RUN_FINISHED',
    runId: 'r'.repeat(24),
    failed: false,
    eventAt: at(-1000),
    payload: JSON.stringify({ e }),
    now: at(-1000 + e),
  });

/** The attempts of the scenario, in the order they finished. */
function script(w: World): Completion[] {
  const [s0, s1] = w.claimed as [ClaimedDelivery[], ClaimedDelivery[]];
  const ok = (ms: number) => ({ ok: true, statusCode: 200, responseMs: 12, error: null, startedAt: at(ms - 12) });
  const fail = (ms: number) => ({ ok: false, statusCode: 500, responseMs: 9, error: 'HTTP 500', startedAt: at(ms - 9) });
  const plan = (ms: number, maxAttempts = 5) => ({ now: at(ms), maxAttempts, nextAttemptAt: at(ms + 60000) });
  const item = (d: ClaimedDelivery, outcome: Completion['outcome'], p: Completion['plan']): Completion => ({ d, outcome, plan: p });
  return [
    item(s0[0]!, fail(100), plan(100)), // S0: 1 failure, retry planned
    item(s1[0]!, fail(110), plan(110)), // S1: 4 failures, retry planned (stopped below)
    item(s0[1]!, ok(120), plan(120)), // S0: reset to 0
    item(s1[1]!, fail(130), plan(130)), // S1: 5 failures, disabled
    item(s1[2]!, ok(140), plan(140)), // S1 is off: success recorded, counter kept
    item(s0[2]!, fail(150), plan(150, 1)), // S0: 1 failure; its last attempt, so failed
    item({ ...s0[3]!, leaseId: 'not-the-lease' }, ok(160), plan(160)), // lease lost: nothing written
  ];
}

async function snapshot(w: World) {
  const subs = await db.pool.query(
    `SELECT id, active, consecutive_failures, disabled_reason, last_delivery_at, updated_at <> created_at AS updated
       FROM subscriptions WHERE project_id = $1`,
    [w.projectId],
  );
  const deliveries = await db.pool.query(
    `SELECT subscription_id, payload, status, attempt, next_attempt_at, lease_id IS NOT NULL AS leased, status_code, response_ms, error
       FROM deliveries WHERE project_id = $1`,
    [w.projectId],
  );
  const attempts = await db.pool.query(
    `SELECT d.subscription_id, d.payload, a.attempt, a.status, a.status_code, a.response_ms, a.error, a.started_at, a.finished_at
       FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.project_id = $1`,
    [w.projectId],
  );
  // Subscription ids differ between worlds: S0/S1 instead; a delivery is known by its subscription and its payload.
  const name = (id: string) => `S${w.subs.indexOf(id)}`;
  const byDelivery = (rows: Record<string, unknown>[], suffix: (r: Record<string, unknown>) => string = () => '') =>
    Object.fromEntries(
      rows.map(({ subscription_id, payload, ...r }) => [`${name(subscription_id as string)} ${payload as string}${suffix(r)}`, r]),
    );
  return {
    subscriptions: Object.fromEntries(subs.rows.map(({ id, ...r }) => [name(id as string), r])),
    deliveries: byDelivery(deliveries.rows),
    attempts: byDelivery(attempts.rows, (r) => ` #${r.attempt as number}`),
  };
}

describe('recording attempts in batches', () => {
  it('writes what recording them one at a time writes: counters, auto-disable, stopped retries, statuses, lost leases', async () => {
    const one = await world();
    const batch = await world();
    for (const w of [one, batch]) for (let e = 0; e < 4; e++) await event(w, e);
    const claimed = await claimDue(db.pool, at(0), 100, at(15000));
    expect(claimed).toHaveLength(16);
    for (const w of [one, batch])
      for (const [s, id] of w.subs.entries())
        w.claimed[s] = claimed.filter((d) => d.subscriptionId === id).sort((a, b) => a.payload.localeCompare(b.payload));
    // A fifth event's deliveries wait for their first attempt (S1's is stopped when S1 is disabled).
    for (const w of [one, batch]) await event(w, 4);

    const alone = [];
    for (const item of script(one)) alone.push(...(await withTransaction(db.pool, (c) => completeAttempts(c, [item]))));
    const together = await withTransaction(db.pool, (c) => completeAttempts(c, script(batch)));

    expect(together).toEqual(alone);
    expect(together).toEqual([
      { recorded: true, status: 'pending', disabledSubscription: false },
      { recorded: true, status: 'pending', disabledSubscription: false },
      { recorded: true, status: 'success', disabledSubscription: false },
      { recorded: true, status: 'failed', disabledSubscription: true },
      { recorded: true, status: 'success', disabledSubscription: false },
      { recorded: true, status: 'failed', disabledSubscription: false },
      { recorded: false },
    ]);
    const [a, b] = [await snapshot(one), await snapshot(batch)];
    expect(b).toEqual(a);

    expect(b.subscriptions).toEqual({
      S0: { active: true, consecutive_failures: 1, disabled_reason: null, last_delivery_at: at(150), updated: false },
      S1: {
        active: false,
        consecutive_failures: 5,
        disabled_reason: 'disabled after 5 consecutive failed delivery attempts (last: HTTP 500)',
        last_delivery_at: at(140),
        updated: true,
      },
    });
    expect(b.deliveries).toMatchObject({
      'S0 {"e":0}': { status: 'pending', attempt: 1, next_attempt_at: at(60100), leased: false, status_code: 500, error: 'HTTP 500' },
      'S0 {"e":1}': { status: 'success', attempt: 1, next_attempt_at: null, leased: false, status_code: 200, error: null },
      'S0 {"e":2}': { status: 'failed', attempt: 1, next_attempt_at: null, leased: false, error: 'HTTP 500' },
      'S0 {"e":3}': { status: 'pending', attempt: 1, next_attempt_at: at(15000), leased: true, status_code: null },
      'S0 {"e":4}': { status: 'pending', attempt: 0, leased: false },
      'S1 {"e":0}': { status: 'failed', next_attempt_at: null, error: 'HTTP 500 (retries stopped: the subscription was disabled)' },
      'S1 {"e":1}': { status: 'failed', next_attempt_at: null, error: 'HTTP 500 (retries stopped: the subscription was disabled)' },
      'S1 {"e":2}': { status: 'success', error: null },
      'S1 {"e":3}': { status: 'pending', leased: true },
      'S1 {"e":4}': { status: 'failed', attempt: 0, next_attempt_at: null, error: 'not sent: the subscription was disabled' },
    });
    expect(Object.keys(b.attempts).sort()).toEqual([
      'S0 {"e":0} #1',
      'S0 {"e":1} #1',
      'S0 {"e":2} #1',
      'S1 {"e":0} #1',
      'S1 {"e":1} #1',
      'S1 {"e":2} #1',
    ]);
    expect(b.attempts['S0 {"e":1} #1']).toEqual({
      attempt: 1,
      status: 'success',
      status_code: 200,
      response_ms: 12,
      error: null,
      started_at: at(108),
      finished_at: at(120),
    });
  });

  it('writes nothing for a subscription deleted meanwhile, and nothing twice for an attempt recorded already', async () => {
    const w = await world();
    await event(w, 0);
    const claimed = await claimDue(db.pool, at(0), 100, at(15000));
    const [d0, d1] = [claimed.find((d) => d.subscriptionId === w.subs[0])!, claimed.find((d) => d.subscriptionId === w.subs[1])!];
    const outcome = { ok: true, statusCode: 204, responseMs: 3, error: null, startedAt: at(10) };
    const plan = { now: at(13), maxAttempts: 5, nextAttemptAt: at(60013) };
    await db.pool.query(`DELETE FROM subscriptions WHERE id = $1`, [w.subs[1]]);
    const first = await withTransaction(db.pool, (c) =>
      completeAttempts(c, [
        { d: d0, outcome, plan },
        { d: d1, outcome, plan },
      ]),
    );
    expect(first).toEqual([{ recorded: true, status: 'success', disabledSubscription: false }, { recorded: false }]);
    // The lease is cleared by the first record: the same attempt again writes nothing.
    expect(await withTransaction(db.pool, (c) => completeAttempts(c, [{ d: d0, outcome, plan }]))).toEqual([{ recorded: false }]);
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM delivery_attempts WHERE delivery_id = $1`, [d0.id]);
    expect(rows[0].n).toBe(1);
  });

  it('gives back claims never sent: the attempt uncounted, the due time and lease as before the claim', async () => {
    const w = await world();
    await event(w, 0);
    const row = (id: string) =>
      db.pool.query(`SELECT attempt, next_attempt_at, lease_id FROM deliveries WHERE id = $1`, [id]).then((r) => r.rows[0]);
    const ids = (await db.pool.query(`SELECT id FROM deliveries WHERE project_id = $1 ORDER BY id`, [w.projectId])).rows.map((r) => r.id);
    // One delivery's previous attempt was lost: its lease (of a dispatcher that died) ran out at at(-500).
    await db.pool.query(`UPDATE deliveries SET attempt = 2, lease_id = 'dead-lease', next_attempt_at = $2 WHERE id = $1`, [
      ids[1],
      at(-500),
    ]);
    const before = await Promise.all(ids.map(row));
    const claimed = (await claimDue(db.pool, at(0), 100, at(15000))).filter((d) => ids.includes(d.id));
    expect(claimed).toHaveLength(2);
    expect(claimed.find((d) => d.id === ids[1])).toMatchObject({ attempt: 3, interrupted: true, before: { leaseId: 'dead-lease' } });

    // A claim taken over by another holder meanwhile is not touched.
    const other = claimed.find((d) => d.id === ids[0])!;
    expect(await releaseClaims(db.pool, [...claimed.filter((d) => d !== other), { ...other, leaseId: 'someone-else' }])).toBe(1);
    expect(await row(ids[1])).toEqual(before[1]);
    expect(await row(ids[0])).toMatchObject({ attempt: 1, lease_id: other.leaseId });
    expect(await releaseClaims(db.pool, [other])).toBe(1);
    expect(await row(ids[0])).toEqual(before[0]);

    // Due again as they were: the lost attempt is still found lost by the next claim.
    const again = (await claimDue(db.pool, at(1), 100, at(15000))).filter((d) => ids.includes(d.id));
    expect(again.map((d) => [d.attempt, d.interrupted]).sort()).toEqual([
      [1, false],
      [3, true],
    ]);
  });
  it('creates up to the limit claimed, as a claim leaves them; the rest due at once; given back, they are due as created', async () => {
    const w = await world();
    const third = randomBytes(12).toString('hex');
    await db.pool.query(
      `INSERT INTO subscriptions (id, project_id, url, events, secret_ciphertext, created_at, updated_at)
       VALUES ($1, $2, 'https://hooks.example.test/b', '{RUN_FINISHED}', 'v1.a.b.c', $3, $3)`,
      [third, w.projectId, at(-60000)],
    );
    const e = {
      eventId: `${w.projectId}-claimed`,
      projectId: w.projectId,
      event: 'RUN_FINISHED' as const,
      runId: 'r'.repeat(24),
      failed: false,
      eventAt: at(-1000),
      payload: JSON.stringify({ claimed: true }),
      now: at(0),
    };
    const { created, claimed } = await createDeliveriesForEvent(db.pool, e, { limit: 2, leaseUntil: at(15000) });
    expect(created).toBe(3);
    expect(claimed).toHaveLength(2);
    const rows = (id: string) =>
      db.pool.query(`SELECT attempt, next_attempt_at, lease_id FROM deliveries WHERE id = $1`, [id]).then((r) => r.rows[0]);
    for (const d of claimed) {
      expect(d).toMatchObject({ event: 'RUN_FINISHED', payload: e.payload, attempt: 1, interrupted: false, active: true });
      expect(d.url).toMatch(/^https:\/\/hooks\.example\.test\//);
      expect(await rows(d.id)).toEqual({ attempt: 1, next_attempt_at: at(15000), lease_id: d.leaseId });
    }
    // The third is due now, for a claim; the claimed ones are not (their lease runs).
    const due = (await claimDue(db.pool, at(1), 100, at(15001))).filter((d) => d.payload === e.payload);
    expect(due).toHaveLength(1);
    expect(claimed.map((d) => d.id)).not.toContain(due[0]!.id);
    expect(due[0]).toMatchObject({ attempt: 1, interrupted: false });
    // A replay creates and claims nothing.
    expect(await createDeliveriesForEvent(db.pool, e, { limit: 2, leaseUntil: at(15000) })).toEqual({ created: 0, claimed: [] });
    // Given back unsent, a claimed one is as if created unclaimed.
    expect(await releaseClaims(db.pool, claimed)).toBe(2);
    for (const d of claimed) expect(await rows(d.id)).toEqual({ attempt: 0, next_attempt_at: at(0), lease_id: null });
  });
});
