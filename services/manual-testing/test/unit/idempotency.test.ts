/**
 * A create's own record of its `Idempotency-Key` (the service kit's `withIdempotency`, used by every create of the
 * service): what the gateway's header carries is written with the resource, in its transaction, so that a retry
 * reaching the service again (the gateway's record lost to a crash between the commit and the answer) gets the
 * first answer back and creates nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { idempotencyHeaderValue, IDEMPOTENCY_RECORD_HEADER, IDEMPOTENCY_REPLAYED_HEADER, type IdempotencyRecord } from '@assay/service-kit';
import { failure, handlerSuite, newProject, owner, type HandlerSuite } from './support';

let s: HandlerSuite;
beforeAll(async () => {
  s = await handlerSuite('idempotency');
});
afterAll(() => s.db.drop());

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** A key's record as the gateway sends it: a fresh name, the body's fingerprint, a day's window, a seal key. */
function record(over: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  return { record: hex(randomBytes(8).toString('hex')), fingerprint: hex('body'), ttlSeconds: 86_400, sealKey: randomBytes(32), ...over };
}

/** The owner's call options carrying `r`, and whether the answer said it was replayed. */
function withKey(r: IdempotencyRecord | string) {
  const seen = { replayed: false };
  const options = {
    headers: { ...owner.headers, [IDEMPOTENCY_RECORD_HEADER]: typeof r === 'string' ? r : idempotencyHeaderValue(r) },
    onHeader: (h: Headers) => {
      seen.replayed = h.get(IDEMPOTENCY_REPLAYED_HEADER) === 'true';
    },
  };
  return { options, seen };
}

const suiteCount = async (projectId: string) =>
  Number((await s.db.pool.query('SELECT count(*) AS n FROM suites WHERE project_id = $1', [projectId])).rows[0].n);
const records = async (name: string) =>
  (await s.db.pool.query('SELECT fingerprint, answer, created_at FROM idempotency_keys WHERE record = $1', [name])).rows;

describe("a create's Idempotency-Key record in the service", () => {
  it('the same key again answers the first answer, marked replayed, and creates nothing', async () => {
    const p = newProject();
    const r = record();
    const first = withKey(r);
    const a = await s.client.createSuite({ projectId: p, name: 'Checkout' }, first.options);
    expect(first.seen.replayed).toBe(false);
    const again = withKey(r);
    const b = await s.client.createSuite({ projectId: p, name: 'Checkout' }, again.options);
    expect(again.seen.replayed).toBe(true);
    expect(b).toEqual(a);
    expect(await suiteCount(p)).toBe(1);
    // Sealed: the answer's text is not in the table.
    const [row] = await records(r.record);
    expect(row.fingerprint).toBe(r.fingerprint);
    expect(Buffer.from(row.answer).includes(Buffer.from('Checkout'))).toBe(false);
  });

  it('another body (fingerprint) or another credential (seal key) with the key: 422 IDEMPOTENCY_KEY_REUSE, nothing created', async () => {
    const p = newProject();
    const r = record();
    await s.client.createSuite({ projectId: p, name: 'A' }, withKey(r).options);
    const otherBody = await failure(
      s.client.createSuite({ projectId: p, name: 'B' }, withKey({ ...r, fingerprint: hex('other') }).options),
    );
    expect(otherBody.reason).toBe('IDEMPOTENCY_KEY_REUSE');
    const otherCredential = await failure(
      s.client.createSuite({ projectId: p, name: 'A' }, withKey({ ...r, sealKey: randomBytes(32) }).options),
    );
    expect(otherCredential.reason).toBe('IDEMPOTENCY_KEY_REUSE');
    expect(await suiteCount(p)).toBe(1);
  });

  it('a refused create records nothing: the same key then creates with a corrected body', async () => {
    const p = newProject();
    const r = record();
    const refused = await failure(s.client.createSuite({ projectId: p, name: 'Child', parentSuiteId: 'f'.repeat(24) }, withKey(r).options));
    expect(refused.reason).toBe('VALIDATION_ERROR');
    expect(await records(r.record)).toHaveLength(0);
    const created = withKey(r);
    await s.client.createSuite({ projectId: p, name: 'Child' }, created.options);
    expect(created.seen.replayed).toBe(false);
    expect(await suiteCount(p)).toBe(1);
  });

  it('two retries at once: one resource, both answered with it', async () => {
    const p = newProject();
    const r = record();
    const [a, b] = await Promise.all([
      s.client.createSuite({ projectId: p, name: 'Twice' }, withKey(r).options),
      s.client.createSuite({ projectId: p, name: 'Twice' }, withKey(r).options),
    ]);
    expect(a.suite!.id).toBe(b.suite!.id);
    expect(await suiteCount(p)).toBe(1);
  });

  it('a record past its window creates anew, and is dropped by later creates', async () => {
    const p = newProject();
    const r = record({ ttlSeconds: 60 });
    const first = await s.client.createSuite({ projectId: p, name: 'Old' }, withKey(r).options);
    await s.db.pool.query(`UPDATE idempotency_keys SET created_at = now() - interval '61 seconds' WHERE record = $1`, [r.record]);
    const later = withKey(r);
    const second = await s.client.createSuite({ projectId: p, name: 'Old' }, later.options);
    expect(later.seen.replayed).toBe(false);
    expect(second.suite!.id).not.toBe(first.suite!.id);
    expect(await suiteCount(p)).toBe(2);

    const stale = record({ ttlSeconds: 60 });
    await s.client.createSuite({ projectId: p, name: 'Stale' }, withKey(stale).options);
    await s.db.pool.query(`UPDATE idempotency_keys SET created_at = now() - interval '2 days' WHERE record = $1`, [stale.record]);
    await s.client.createSuite({ projectId: p, name: 'Fresh' }, withKey(record({ ttlSeconds: 60 })).options);
    expect(await records(stale.record)).toHaveLength(0);
  });

  it('without the header, or with one that is not the gateway’s, every create creates', async () => {
    const p = newProject();
    await s.client.createSuite({ projectId: p, name: 'Plain' }, owner);
    await s.client.createSuite({ projectId: p, name: 'Plain' }, owner);
    const bad = withKey('v1.not-a-record');
    await s.client.createSuite({ projectId: p, name: 'Plain' }, bad.options);
    await s.client.createSuite({ projectId: p, name: 'Plain' }, withKey('v1.not-a-record').options);
    expect(await suiteCount(p)).toBe(4);
  });

  it.each([
    ['a test case', 'createCase', 'cases'],
    ['a release', 'createRelease', 'releases'],
    ['a session', 'createSession', 'sessions'],
    ['a manual run', 'createManualRun', 'manual_runs'],
  ] as const)('%s: replayed from its record, created once', async (_, rpc, table) => {
    const p = newProject();
    const suite = (await s.client.createSuite({ projectId: p, name: 'Home' }, owner)).suite!;
    const body = {
      createCase: { projectId: p, title: 'Pay', suiteId: suite.id },
      createRelease: { projectId: p, name: 'R1' },
      createSession: { projectId: p, name: 'Explore' },
      createManualRun: { projectId: p, name: 'Run' },
    }[rpc];
    const r = record();
    const call = (o: ReturnType<typeof withKey>['options']) =>
      (s.client[rpc] as (req: typeof body, opts: typeof o) => Promise<unknown>)(body, o);
    const first = await call(withKey(r).options);
    const again = withKey(r);
    expect(await call(again.options)).toEqual(first);
    expect(again.seen.replayed).toBe(true);
    const { rows } = await s.db.pool.query(`SELECT count(*) AS n FROM ${table} WHERE project_id = $1`, [p]);
    expect(Number(rows[0].n)).toBe(1);
  });
});
