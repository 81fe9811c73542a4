/**
 * `Idempotency-Key` on POST creates (spec §4.4, CONTRACT §4, §9) through the whole system: replay of the
 * original status, body and headers with `Idempotent-Replayed: true`; 422 for a different body; keys scoped
 * to the token and the path; validation failures not stored; keys over 255 characters refused; 10 concurrent
 * identical creates with one fresh key → exactly one resource; and the service's own record, which answers a retry
 * once the gateway's record is gone (a crash between the service's commit and its answer), ingestion's included. The in-flight 409, the
 * lease after a crash and 5xx answers are covered in gateway/test/policies.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';

const admin = testAdmin();
let t: Tenant;
beforeAll(async () => {
  t = await admin.tenant('owner');
});

const key = () => `key-${randomUUID()}`;
const create = (tenant: Tenant, body: unknown, idempotencyKey?: string, prefix = '/api/v1/public') =>
  testApi(tenant.token).post(`${prefix}/${tenant.projectId}/manual-test-suites`, body, {
    headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
  });
/** A passed Playwright spec of one test. */
const spec = (title: string) => ({ title, tests: [{ projectName: 'chromium', results: [{ status: 'passed', duration: 5 }] }] });
const suites = async (tenant: Tenant) => (await testApi(tenant.token).get(`/${tenant.projectId}/manual-test-suites?limit=100`)).body;

describe('Idempotency-Key on POST creates', () => {
  it('replays the original answer (status, body, headers) with Idempotent-Replayed: true, without creating again', async () => {
    const p = await admin.tenant('owner');
    const k = key();
    const first = await create(p, { name: 'Checkout' }, k);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await create(p, { name: 'Checkout' }, k);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    // this request's own headers, not the original's
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(again.headers.get('ratelimit-limit')).toBe(first.headers.get('ratelimit-limit'));
    expect(again.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await suites(p)).pagination.total).toBe(1);
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSE for the same key with a different body', async () => {
    const k = key();
    expect((await create(t, { name: 'A' }, k)).status).toBe(201);
    const reuse = await create(t, { name: 'B' }, k);
    expect(reuse.status).toBe(422);
    expect(reuse.body).toMatchObject({ success: false, error: { code: 'IDEMPOTENCY_KEY_REUSE', message: expect.any(String) } });
    // byte-level fingerprint: the same JSON spelled differently is a different body
    const spaced = await testApi(t.token).request('POST', `/${t.projectId}/manual-test-suites`, {
      rawBody: '{ "name": "A" }',
      headers: { 'content-type': 'application/json', 'idempotency-key': k },
    });
    expect(spaced.status).toBe(422);
  });

  it('without the header, every request creates (no deduplication)', async () => {
    const p = await admin.tenant('owner');
    const a = await create(p, { name: 'Same' });
    const b = await create(p, { name: 'Same' });
    expect(a.body.data._id).not.toBe(b.body.data._id);
    expect((await suites(p)).pagination.total).toBe(2);
  });

  it('scopes keys to the token: another token with the same key and body creates its own resource', async () => {
    const k = key();
    const other = await admin.member(t.orgId, 'member', { projects: [t.projectId] });
    const mine = await create(t, { name: 'Scoped' }, k);
    const theirs = await create({ ...t, token: other.token }, { name: 'Scoped' }, k);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data._id).not.toBe(mine.body.data._id);
  });

  it('scopes keys to the path: the /api/public/v1 alias is the same path, another project is not', async () => {
    const k = key();
    const first = await create(t, { name: 'Alias' }, k);
    const viaAlias = await create(t, { name: 'Alias' }, k, '/api/public/v1');
    expect(viaAlias.headers.get('idempotent-replayed')).toBe('true');
    expect(viaAlias.body.data._id).toBe(first.body.data._id);
    const q = await admin.project(t.orgId, 'Second project');
    const token = (await admin.token(t.userId, { projects: [t.projectId, q] })).token;
    const inProject = await testApi(token).post(
      `/${t.projectId}/manual-test-suites`,
      { name: 'Alias' },
      { headers: { 'idempotency-key': k } },
    );
    const inOther = await testApi(token).post(`/${q}/manual-test-suites`, { name: 'Alias' }, { headers: { 'idempotency-key': k } });
    expect(inProject.status).toBe(201);
    expect(inOther.status).toBe(201);
    expect(inOther.headers.get('idempotent-replayed')).toBeNull();
  });

  it('does not store validation failures: after a 400 the same key works with a corrected body', async () => {
    const k = key();
    const bad = await create(t, { name: 'x', unknown: true }, k);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    const good = await create(t, { name: 'Corrected' }, k);
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('stores what the handler answered, including its own 400 (a parent that does not exist)', async () => {
    const k = key();
    const body = { name: 'Orphan', parentSuiteId: '0123456789abcdef01234567' };
    const first = await create(t, body, k);
    expect(first.status).toBe(400);
    const again = await create(t, body, k);
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('refuses a key over 255 characters with 400 VALIDATION_ERROR; 255 is accepted', async () => {
    const long = await create(t, { name: 'Long' }, 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    expect(long.body.error.details).toEqual([expect.objectContaining({ path: expect.stringMatching(/idempotency-key/i) })]);
    expect((await create(t, { name: 'Max' }, 'k'.repeat(255) + '')).status).toBe(201);
    const empty = await testApi(t.token).request('POST', `/${t.projectId}/manual-test-suites`, {
      body: { name: 'Empty' },
      headers: { 'idempotency-key': '' },
    });
    expect(empty.status).toBe(400);
  });

  it('10 concurrent identical creates with one fresh key: exactly one resource; every answer the original or a 409', async () => {
    const p = await admin.tenant('owner');
    const k = key();
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(p, { name: 'Concurrent', description: 'once' }, k)));
    const created = answers.filter((a) => a.status === 201);
    const inProgress = answers.filter((a) => a.status === 409);
    expect(created.length + inProgress.length).toBe(10);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.text)).size).toBe(1); // replays are byte-identical to the original
    expect(created.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const a of inProgress) expect(a.body.error.code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    const list = await suites(p);
    expect(list.pagination.total).toBe(1);
    expect(list.data[0]._id).toBe(created[0]!.body.data._id);
    // once settled, a retry replays it
    const retry = await create(p, { name: 'Concurrent', description: 'once' }, k);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data._id).toBe(list.data[0]._id);
  });

  it('a viewer is refused before the key is looked at (403, nothing stored)', async () => {
    const viewer = await admin.member(t.orgId, 'viewer', { projects: [t.projectId] });
    const k = key();
    const res = await testApi(viewer.token).post(
      `/${t.projectId}/manual-test-suites`,
      { name: 'V' },
      { headers: { 'idempotency-key': k } },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('stored answers hold no secret (issue: webhook signing secrets in Redis)', () => {
  it('a replayed webhook create answers the same signing secret, which appears nowhere in Redis', async () => {
    const p = await admin.tenant('owner');
    const k = key();
    const body = { url: 'https://hooks.example.test/idem', events: ['RUN_FINISHED'] };
    const first = await testApi(p.token).post(`/${p.projectId}/webhooks`, body, { headers: { 'idempotency-key': k } });
    expect(first.status).toBe(201);
    const secret = first.body.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const again = await testApi(p.token).post(`/${p.projectId}/webhooks`, body, { headers: { 'idempotency-key': k } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.secret).toBe(secret);
    expect(again.body.data._id).toBe(first.body.data._id);

    const redis = new Redis(testSystem().infra.REDIS_URL);
    try {
      const keys = await redis.keys(`assay:idem:${p.tokenId}:*`);
      expect(keys.length).toBeGreaterThan(0);
      for (const name of keys) {
        const stored = (await redis.get(name)) ?? '';
        expect(stored).not.toContain(secret);
        expect(stored).not.toContain(secret.slice('whsec_'.length));
        expect(stored).not.toContain('whsec_');
        expect(stored).not.toContain(k);
      }
    } finally {
      redis.disconnect();
    }
  });

  it('another credential of the same token (a rotation) cannot open the stored answer: 422, nothing created', async () => {
    const p = await admin.tenant('owner');
    const k = key();
    expect((await create(p, { name: 'Before rotation' }, k)).status).toBe(201);
    const rotated = await admin.rpc.rotateToken({ id: p.tokenId });
    const retry = await testApi(rotated.token).post(
      `/${p.projectId}/manual-test-suites`,
      { name: 'Before rotation' },
      {
        headers: { 'idempotency-key': k },
      },
    );
    expect(retry.status).toBe(422);
    expect(retry.body.error.code).toBe('IDEMPOTENCY_KEY_REUSE');
    expect((await testApi(rotated.token).get(`/${p.projectId}/manual-test-suites`)).body.pagination.total).toBe(1);
  });
});

describe("the service's own record: a retry after the gateway's record was lost (a crash between the commit and the answer)", () => {
  let redis: Redis;
  let db: Pool;
  beforeAll(() => {
    redis = new Redis(testSystem().infra.REDIS_URL);
    db = new Pool({ connectionString: testSystem().infra.DATABASE_URL, max: 1 });
  });
  afterAll(async () => {
    redis.disconnect();
    await db.end();
  });
  /** What a gateway that died (or whose service died) after the commit leaves in Redis: nothing, once the lease ran out. */
  const forget = async (p: Tenant) => {
    const names = await redis.keys(`assay:idem:${p.tokenId}:*`);
    expect(names.length).toBeGreaterThan(0);
    await redis.del(...names);
  };
  const post = (p: Tenant, path: string, body: unknown, k: string) =>
    testApi(p.token).post(`/${p.projectId}/${path}`, body, { headers: { 'idempotency-key': k } });

  it.each([
    ['a suite', 'manual-test-suites', { name: 'Checkout' }, { name: 'Cart' }, 'manual_testing.suites'],
    ['a manual run', 'manual-runs', { name: 'Sprint 12' }, { name: 'Sprint 13' }, 'manual_testing.manual_runs'],
    ['a report', 'reports', { days: 1 }, { days: 2 }, 'reports.reports'],
  ])('%s: the retry gets the first answer, replayed, and creates nothing; another body gets 422', async (_, path, body, other, table) => {
    const p = await admin.tenant('owner');
    const k = key();
    const first = await post(p, path, body, k);
    expect([201, 202]).toContain(first.status); // a report is 202: accepted, generated later
    await forget(p);
    const again = await post(p, path, body, k);
    expect(again.status).toBe(first.status);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    // The gateway stored it again: a third try is answered from Redis.
    const third = await post(p, path, body, k);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(third.text).toBe(first.text);

    await forget(p);
    const reuse = await post(p, path, other, k);
    expect(reuse.status).toBe(422);
    expect(reuse.body.error.code).toBe('IDEMPOTENCY_KEY_REUSE');
    const { rows } = await db.query(`SELECT count(*) AS n FROM ${table} WHERE project_id = $1`, [p.projectId]);
    expect(Number(rows[0].n)).toBe(1);
  });

  it.each([
    [
      'a Playwright report',
      'playwright',
      (title: string) => ({ suites: [{ title: 'a.spec.ts', file: 'a.spec.ts', specs: [spec(title)] }] }),
    ],
    ['a run started without a build id', 'runs', (title: string) => ({ metadata: { environment: title } })],
  ])('ingestion, %s: the retry gets the first run, replayed, and no second run; another body gets 422', async (_, path, body) => {
    const p = await admin.tenant('owner');
    const k = key();
    const upload = (b: unknown) => testApi(p.token).post(`/api/v1/ingest/${p.projectId}/${path}`, b, { headers: { 'idempotency-key': k } });
    const first = await upload(body('checkout'));
    expect(first.status).toBe(201);
    await forget(p);
    const again = await upload(body('checkout'));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    await forget(p);
    const reuse = await upload(body('cart'));
    expect(reuse.status).toBe(422);
    expect(reuse.body.error.code).toBe('IDEMPOTENCY_KEY_REUSE');
    expect((await testApi(p.token).get(`/${p.projectId}/test-runs`)).body.pagination.total).toBe(1);
  });

  it("ingestion, an attachment's bytes: the retry gets the first artifact, replayed, stored once; other bytes get 422", async () => {
    const p = await admin.tenant('owner');
    const attempt = { status: 'failed', duration: 5, attachments: [{ name: 'screenshot', path: 'shot.png', contentType: 'image/png' }] };
    const report = {
      suites: [
        { title: 'a.spec.ts', file: 'a.spec.ts', specs: [{ title: 'pays', tests: [{ projectName: 'chromium', results: [attempt] }] }] },
      ],
    };
    const run = await testApi(p.token).post(`/api/v1/ingest/${p.projectId}/playwright`, report);
    expect(run.status).toBe(201);
    const query = new URLSearchParams({ file: 'a.spec.ts', titlePath: 'pays', projectName: 'chromium', retry: '0', name: 'screenshot' });
    const k = key();
    const upload = (bytes: Buffer) =>
      testApi(p.token).request('POST', `/api/v1/ingest/${p.projectId}/runs/${run.body.data.runId}/artifacts?${query}`, {
        rawBody: bytes,
        headers: { 'content-type': 'image/png', 'idempotency-key': k },
      });
    const first = await upload(Buffer.from('first screenshot'));
    expect(first.status).toBe(201);
    await forget(p);
    const again = await upload(Buffer.from('first screenshot'));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    await forget(p);
    const reuse = await upload(Buffer.from('other screenshot'));
    expect(reuse.status).toBe(422);
    expect(reuse.body.error.code).toBe('IDEMPOTENCY_KEY_REUSE');
    const { rows } = await db.query('SELECT id FROM runs.artifacts WHERE run_id = $1', [run.body.data.runId]);
    expect(rows.map((r) => r.id)).toEqual([first.body.data.id]);
  });

  it("a webhook: the retry gets the same signing secret, which the service's record does not hold in clear; a rotated token's retry gets 422", async () => {
    const p = await admin.tenant('owner');
    const k = key();
    const body = { url: 'https://hooks.example.test/crash', events: ['RUN_FINISHED'] };
    const first = await post(p, 'webhooks', body, k);
    expect(first.status).toBe(201);
    const secret = first.body.data.secret as string;
    await forget(p);
    const again = await post(p, 'webhooks', body, k);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);

    const { rows } = await db.query('SELECT answer FROM webhooks.idempotency_keys');
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(Buffer.from(r.answer).includes(Buffer.from(secret.slice('whsec_'.length)))).toBe(false);

    const rotated = await admin.rpc.rotateToken({ id: p.tokenId });
    await forget(p);
    const retry = await testApi(rotated.token).post(`/${p.projectId}/webhooks`, body, { headers: { 'idempotency-key': k } });
    expect(retry.status).toBe(422);
    expect(retry.body.error.code).toBe('IDEMPOTENCY_KEY_REUSE');
    expect((await testApi(rotated.token).get(`/${p.projectId}/webhooks`)).body.pagination.total).toBe(1);
  });
});
