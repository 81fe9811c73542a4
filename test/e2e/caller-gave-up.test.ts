/**
 * A create that waits past the gateway's deadline (here a lock held by the test) is answered 503, and the service
 * does not commit it once the lock is let go: the retry the spec tells a client to make, with the same
 * Idempotency-Key (the gateway keeps no answer for a 5xx), creates it once. Before, the service committed after its
 * caller had given up and the retry stored a second one. Through an RPC (a manual test suite) and a request to a
 * service's internal HTTP port (a run started by a reporter), on a gateway of its own whose deadline is 1 s.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  startPrivateGateway,
  startPrivateRedis,
  testAdmin,
  testApi,
  testSystem,
  type PrivateGateway,
  type PrivateRedis,
  type Tenant,
} from '@assay/testkit';

const REQUEST_TIMEOUT_MS = 1000;
const admin = testAdmin();
let slow: PrivateGateway;
let redis: PrivateRedis;
let db: pg.Client;

beforeAll(async () => {
  // A Redis of its own: the default per-address limit would count every other test's requests from this machine.
  redis = await startPrivateRedis();
  slow = await startPrivateGateway({ name: 'deadline', env: { REDIS_URL: redis.url, REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
  db = new pg.Client({ connectionString: testSystem().infra.DATABASE_URL });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await slow?.stop();
  await redis?.remove();
});

const post = (token: string, path: string, body: unknown, key: string) =>
  slow
    .api(token)
    .request('POST', path, { rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json', 'idempotency-key': key } });

describe('a create whose caller gave up is not committed', () => {
  it('a suite created while its project lock is held past the deadline: 503, nothing stored, the retry creates one', async () => {
    const t: Tenant = await admin.tenant('member');
    const key = `suite-${randomUUID()}`;
    const suites = async () => (await testApi(t.token).get(`/${t.projectId}/manual-test-suites?limit=100`)).body.data;
    // The lock every suite create of the project takes first (manual-testing's store).
    const lock = `hashtext('manual_testing:suites:' || $1)`;
    await db.query(`SELECT pg_advisory_lock(${lock})`, [t.projectId]);
    let first;
    try {
      first = await post(t.token, `/${t.projectId}/manual-test-suites`, { name: 'Checkout' }, key);
    } finally {
      await db.query(`SELECT pg_advisory_unlock(${lock})`, [t.projectId]);
    }
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    // The service's transaction took the lock when it was let go: taking it again waits until that one has ended.
    await db.query(`SELECT pg_advisory_lock(${lock})`, [t.projectId]);
    await db.query(`SELECT pg_advisory_unlock(${lock})`, [t.projectId]);
    expect(await suites()).toEqual([]);

    const retry = await post(t.token, `/${t.projectId}/manual-test-suites`, { name: 'Checkout' }, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect((await suites()).map((s: { name: string }) => s.name)).toEqual(['Checkout']);
    const replay = await post(t.token, `/${t.projectId}/manual-test-suites`, { name: 'Checkout' }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await suites()).toHaveLength(1);
  });

  it("a run started while the project's run counter is locked past the deadline: 503, no run, the retry starts one", async () => {
    const t: Tenant = await admin.tenant('member');
    const token = (await admin.apiKey(t.projectId)).token;
    const key = `run-${randomUUID()}`;
    const start = { metadata: { git: { branch: 'main' } } };
    const runs = async () => (await testApi(t.token).get(`/${t.projectId}/test-runs?limit=50`)).body.data;
    // A first run makes the project's counter row, which every run start of the project updates.
    expect((await post(token, `/api/v1/ingest/${t.projectId}/runs`, start, `first-${randomUUID()}`)).status).toBe(201);
    const lockCounter = async () => {
      await db.query('BEGIN');
      await db.query('SELECT 1 FROM runs.project_counters WHERE project_id = $1 FOR UPDATE', [t.projectId]);
    };
    await lockCounter();
    let first;
    try {
      first = await post(token, `/api/v1/ingest/${t.projectId}/runs`, start, key);
    } finally {
      await db.query('COMMIT');
    }
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    // Locking the row again waits until the service's transaction, which updated it, has ended.
    await lockCounter();
    await db.query('COMMIT');
    expect(await runs()).toHaveLength(1);

    const retry = await post(token, `/api/v1/ingest/${t.projectId}/runs`, start, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.data).toMatchObject({ counter: 2 });
    expect(await runs()).toHaveLength(2);
  });
});
