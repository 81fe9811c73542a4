/**
 * Retention of the delivery history (workers/sweeper.ts `sweepOnce`): finished deliveries (success or failed)
 * whose event is older than the retention are deleted with their attempts, in batches, over every subscription;
 * pending ones (their retries still due) and younger ones are kept. Against a schema of its own.
 */
import { randomBytes } from 'node:crypto';
import { testSchema, type TestSchema } from '@assay/testkit';
import { MIGRATIONS_DIR } from '../../src/service';
import { sweepOnce } from '../../src/workers/sweeper';

let db: TestSchema;

beforeAll(async () => {
  db = await testSchema(MIGRATIONS_DIR, 'webhooks-retention');
});
afterAll(() => db.drop());

const DAY_MS = 86_400_000;
const NOW = new Date('2026-11-28T10:00:00.000Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * DAY_MS);
const hex = () => randomBytes(12).toString('hex');

async function subscription(projectId: string): Promise<string> {
  const id = hex();
  await db.pool.query(
    `INSERT INTO subscriptions (id, project_id, url, events, secret_ciphertext, created_at)
     VALUES ($1, $2, 'https://hooks.example.test/a', '{RUN_FINISHED}', 'v1.x.y.z', $3)`,
    [id, projectId, daysAgo(100)],
  );
  return id;
}

/** A delivery of `status` created `age` days before NOW, with one attempt row unless pending. */
async function delivery(subscriptionId: string, status: 'success' | 'failed' | 'pending', age: number): Promise<string> {
  const id = hex();
  await db.pool.query(
    `INSERT INTO deliveries (id, subscription_id, project_id, event_id, event, run_id, payload, status, attempt,
                             next_attempt_at, created_at, updated_at)
     SELECT $1, s.id, s.project_id, $3, 'RUN_FINISHED', 'r', '{}', $4, 1, $5, $6, $6 FROM subscriptions s WHERE s.id = $2`,
    [id, subscriptionId, hex(), status, status === 'pending' ? NOW : null, daysAgo(age)],
  );
  if (status !== 'pending')
    await db.pool.query(
      `INSERT INTO delivery_attempts (delivery_id, attempt, status, started_at, finished_at) VALUES ($1, 1, $2, $3, $3)`,
      [id, status, daysAgo(age)],
    );
  return id;
}

const present = async (ids: string[]) =>
  (await db.pool.query(`SELECT id FROM deliveries WHERE id = ANY ($1::text[])`, [ids])).rows.map((r) => r.id as string).sort();
const attemptsOf = async (ids: string[]) =>
  Number((await db.pool.query(`SELECT count(*) AS n FROM delivery_attempts WHERE delivery_id = ANY ($1::text[])`, [ids])).rows[0].n);

it('deletes finished deliveries past the retention with their attempts, over every subscription, and keeps the rest', async () => {
  const project = hex();
  const [a, b] = [await subscription(project), await subscription(project)];
  const expired = [
    await delivery(a, 'success', 31),
    await delivery(a, 'failed', 45),
    await delivery(a, 'success', 30.01),
    await delivery(b, 'success', 400),
    await delivery(b, 'failed', 31),
  ];
  const kept = [
    await delivery(a, 'pending', 31), // its retries are still due
    await delivery(a, 'success', 29.99),
    await delivery(b, 'failed', 1),
    await delivery(b, 'pending', 2),
  ];
  expect(await attemptsOf(expired)).toBe(5);

  // Two rows a statement (subscription a's three expired rows take two), one subscription id a read.
  expect(await sweepOnce({ pool: db.pool, now: () => NOW, retentionDays: 30, rowsAtOnce: 2, subscriptionsAtOnce: 1 })).toBe(5);
  expect(await present([...expired, ...kept])).toEqual([...kept].sort());
  expect(await attemptsOf(expired)).toBe(0);
  expect(await attemptsOf(kept)).toBe(2);

  // Nothing left to delete; a shorter retention reaches the younger finished ones, never a pending one.
  expect(await sweepOnce({ pool: db.pool, now: () => NOW, retentionDays: 30 })).toBe(0);
  expect(await sweepOnce({ pool: db.pool, now: () => NOW, retentionDays: 0.5 })).toBe(2);
  expect(await present(kept)).toEqual([kept[0], kept[3]].sort());
});
