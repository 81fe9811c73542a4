/**
 * Webhook subscriptions over HTTP (spec §2.6, §4.3, §5.6, CONTRACT §9): every API rule, against the shared
 * system (its webhooks service runs with the SSRF guard on, the default).
 */
import { testAdmin, testApi, type Tenant } from '@assay/testkit';

const admin = testAdmin();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ID = /^[0-9a-f]{24}$/;
const URL_OK = 'https://hooks.example.com/assay';

describe('webhook subscriptions API', () => {
  let t: Tenant;
  const api = () => testApi(t.token);
  const base = () => `/${t.projectId}/webhooks`;
  const create = (body: unknown) => api().post(base(), body);

  beforeAll(async () => {
    t = await admin.tenant('owner');
  });

  it('creates a subscription (201) with the defaults of CONTRACT §9 and the secret exactly once', async () => {
    const res = await create({ url: URL_OK, events: ['RUN_FINISHED'] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        _id: expect.stringMatching(ID),
        projectId: t.projectId,
        url: URL_OK,
        events: ['RUN_FINISHED'],
        conditions: { outcome: 'any' },
        active: true,
        description: '',
        source: 'api',
        consecutiveFailures: 0,
        disabledReason: null,
        lastDeliveryAt: null,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      },
    });
    const { _id: id, secret } = res.body.data;
    // Never again: not in get, list, update or the delivery list.
    const reads = [
      await api().get(`${base()}/${id}`),
      await api().get(base()),
      await api().patch(`${base()}/${id}`, { description: 'x' }),
      await api().get(`${base()}/${id}/deliveries`),
    ];
    for (const r of reads) {
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(secret);
      expect(r.text).not.toContain('"secret"');
    }
    expect(Object.keys(reads[0]!.body.data).sort()).toEqual(
      [
        '_id',
        'active',
        'conditions',
        'consecutiveFailures',
        'createdAt',
        'description',
        'disabledReason',
        'events',
        'lastDeliveryAt',
        'projectId',
        'source',
        'updatedAt',
        'url',
      ].sort(),
    );
  });

  it('gives every subscription its own secret', async () => {
    const a = await create({ url: URL_OK, events: ['RUN_STARTED'] });
    const b = await create({ url: URL_OK, events: ['RUN_STARTED'] });
    expect(a.body.data.secret).not.toBe(b.body.data.secret);
  });

  it('normalizes both event spellings to the stored upper-case form, without duplicates', async () => {
    const res = await create({ url: URL_OK, events: ['run.finished', 'RUN_STARTED', 'run.started', 'RUN_FINISHED'] });
    expect(res.status).toBe(201);
    expect(res.body.data.events).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    const got = await api().get(`${base()}/${res.body.data._id}`);
    expect(got.body.data.events).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
  });

  it('keeps every given field', async () => {
    const res = await create({
      url: 'http://hooks.example.com/n8n?x=1',
      events: ['run.started'],
      conditions: { outcome: 'failed' },
      description: 'CI failures to chat',
      source: 'n8n',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      url: 'http://hooks.example.com/n8n?x=1',
      events: ['RUN_STARTED'],
      conditions: { outcome: 'failed' },
      description: 'CI failures to chat',
      source: 'n8n',
    });
  });

  const longUrl = (length: number) => {
    const prefix = 'https://hooks.example.com/';
    return prefix + 'a'.repeat(length - prefix.length);
  };

  it.each([
    ['url of 2048 characters', { url: longUrl(2048), events: ['RUN_FINISHED'] }, 201],
    ['url of 2049 characters', { url: longUrl(2049), events: ['RUN_FINISHED'] }, 400],
    ['missing url', { events: ['RUN_FINISHED'] }, 400],
    ['url that is not a URL', { url: 'not a url', events: ['RUN_FINISHED'] }, 400],
    ['ftp url', { url: 'ftp://hooks.example.com/x', events: ['RUN_FINISHED'] }, 400],
    ['javascript url', { url: 'javascript:alert(1)', events: ['RUN_FINISHED'] }, 400],
    ['url with credentials', { url: 'https://user:pass@hooks.example.com/', events: ['RUN_FINISHED'] }, 400],
    ['missing events', { url: URL_OK }, 400],
    ['empty events', { url: URL_OK, events: [] }, 400],
    ['unknown event', { url: URL_OK, events: ['RUN_PAUSED'] }, 400],
    ['events not an array', { url: URL_OK, events: 'RUN_FINISHED' }, 400],
    ['outcome passed', { url: URL_OK, events: ['RUN_FINISHED'], conditions: { outcome: 'passed' } }, 201],
    ['empty conditions (outcome any)', { url: URL_OK, events: ['RUN_FINISHED'], conditions: {} }, 201],
    ['unknown outcome', { url: URL_OK, events: ['RUN_FINISHED'], conditions: { outcome: 'flaky' } }, 400],
    ['unknown condition', { url: URL_OK, events: ['RUN_FINISHED'], conditions: { branch: 'main' } }, 400],
    ['description of 200 characters', { url: URL_OK, events: ['RUN_FINISHED'], description: 'd'.repeat(200) }, 201],
    ['description of 201 characters', { url: URL_OK, events: ['RUN_FINISHED'], description: 'd'.repeat(201) }, 400],
    ['source zapier', { url: URL_OK, events: ['RUN_FINISHED'], source: 'zapier' }, 201],
    ['source api', { url: URL_OK, events: ['RUN_FINISHED'], source: 'api' }, 201],
    ['unknown source', { url: URL_OK, events: ['RUN_FINISHED'], source: 'ifttt' }, 400],
    ['unknown property', { url: URL_OK, events: ['RUN_FINISHED'], secret: 'mine' }, 400],
    ['active on create', { url: URL_OK, events: ['RUN_FINISHED'], active: false }, 400],
  ])('create with %s → %i', async (_label, body, status) => {
    const res = await create(body);
    expect(res.status).toBe(status);
    if (status === 400) {
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details[0].path).toMatch(/^body/);
    }
  });

  it("an empty event list and an over-long url are refused in plain words (not the validator's)", async () => {
    const empty = await create({ url: URL_OK, events: [] });
    expect(empty.body.error.details).toEqual([{ path: 'body.events', message: 'must not be empty' }]);
    const long = await create({ url: longUrl(2049), events: ['RUN_FINISHED'] });
    expect(long.body.error.details).toContainEqual({ path: 'body.url', message: 'must be at most 2048 characters' });
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://api.localhost/hook',
    'http://10.1.2.3/hook',
    'http://192.168.0.10/hook',
    'http://172.16.5.4/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[fd00::1]/hook',
    'http://0.0.0.0/hook',
    'http://2130706433/hook',
  ])('refuses a private, loopback or link-local target %s (SSRF guard on)', async (url) => {
    const res = await create({ url, events: ['RUN_FINISHED'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'body.url' }] });
  });

  it('updates only the fields sent; normalizes events; keeps the secret hidden', async () => {
    const created = (await create({ url: URL_OK, events: ['RUN_FINISHED'], description: 'before', source: 'zapier' })).body.data;
    const patch = (body: unknown) => api().patch(`${base()}/${created._id}`, body);
    let res = await patch({ description: 'after' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      url: URL_OK,
      events: ['RUN_FINISHED'],
      conditions: { outcome: 'any' },
      description: 'after',
      source: 'zapier',
      active: true,
    });
    expect(Date.parse(res.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    res = await patch({ events: ['run.started', 'run.finished'], conditions: { outcome: 'passed' } });
    expect(res.body.data).toMatchObject({
      events: ['RUN_STARTED', 'RUN_FINISHED'],
      conditions: { outcome: 'passed' },
      description: 'after',
    });
    res = await patch({ url: 'https://other.example.com/x' });
    expect(res.body.data).toMatchObject({ url: 'https://other.example.com/x', conditions: { outcome: 'passed' } });
    const got = await api().get(`${base()}/${created._id}`);
    expect(got.body.data).toEqual(res.body.data);
  });

  it.each([
    ['empty body', {}],
    ['source (not updatable)', { source: 'n8n' }],
    ['unknown property', { name: 'x' }],
    ['empty events', { events: [] }],
    ['unknown event', { events: ['RUN_DONE'] }],
    ['bad outcome', { conditions: { outcome: 'sometimes' } }],
    ['active not a boolean', { active: 'yes' }],
    ['description of 201 characters', { description: 'd'.repeat(201) }],
    ['ftp url', { url: 'ftp://x.example.com/' }],
    ['private url', { url: 'http://192.168.1.1/' }],
    ['url of 2049 characters', { url: longUrl(2049) }],
  ])('refuses an update with %s (400, nothing changed)', async (_label, body) => {
    const created = (await create({ url: URL_OK, events: ['RUN_FINISHED'] })).body.data;
    const res = await api().patch(`${base()}/${created._id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const { secret: _secret, ...before } = created;
    expect((await api().get(`${base()}/${created._id}`)).body.data).toEqual(before);
  });

  it('disables with active false (with a reason) and re-enables with active true, clearing the reason and the count', async () => {
    const created = (await create({ url: URL_OK, events: ['RUN_FINISHED'] })).body.data;
    const off = await api().patch(`${base()}/${created._id}`, { active: false });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ active: false, disabledReason: expect.any(String) });
    const on = await api().patch(`${base()}/${created._id}`, { active: true });
    expect(on.body.data).toMatchObject({ active: true, disabledReason: null, consecutiveFailures: 0 });
  });

  it('deletes (200) and then answers 404 everywhere', async () => {
    const created = (await create({ url: URL_OK, events: ['RUN_FINISHED'] })).body.data;
    const del = await api().delete(`${base()}/${created._id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, data: { _id: created._id, deleted: true } });
    for (const res of [
      await api().get(`${base()}/${created._id}`),
      await api().patch(`${base()}/${created._id}`, { active: true }),
      await api().delete(`${base()}/${created._id}`),
      await api().get(`${base()}/${created._id}/deliveries`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('lists with the webhook pagination variant {page, limit, total, hasMore}, oldest first', async () => {
    const p = await admin.tenant('owner');
    const papi = testApi(p.token);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push((await papi.post(`/${p.projectId}/webhooks`, { url: `${URL_OK}/${i}`, events: ['RUN_FINISHED'] })).body.data._id);
    }
    const first = await papi.get(`/${p.projectId}/webhooks`);
    expect(first.status).toBe(200);
    expect(first.body.pagination).toEqual({ page: 1, limit: 10, total: 12, hasMore: true });
    expect(first.body.data.map((w: any) => w._id)).toEqual(ids.slice(0, 10));
    const second = await papi.get(`/${p.projectId}/webhooks?page=2&limit=10`);
    expect(second.body.pagination).toEqual({ page: 2, limit: 10, total: 12, hasMore: false });
    expect(second.body.data.map((w: any) => w._id)).toEqual(ids.slice(10));
    const all = await papi.get(`/${p.projectId}/webhooks?limit=25&unknown=1`);
    expect(all.body.pagination).toEqual({ page: 1, limit: 25, total: 12, hasMore: false });
    expect(JSON.stringify(all.body)).not.toContain('secret');
    expect((await papi.get(`/${p.projectId}/webhooks?limit=7`)).body.error.code).toBe('INVALID_LIMIT');
    expect((await papi.get(`/${p.projectId}/webhooks?page=0`)).body.error.code).toBe('VALIDATION_ERROR');
  });

  it('lists deliveries with a status filter (empty for a new subscription); a bad status is 400', async () => {
    const created = (await create({ url: URL_OK, events: ['RUN_FINISHED'] })).body.data;
    const path = `${base()}/${created._id}/deliveries`;
    for (const q of ['', '?status=failed', '?status=pending', '?status=success']) {
      const res = await api().get(path + q);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: [], pagination: { page: 1, limit: 10, total: 0, hasMore: false } });
    }
    const bad = await api().get(`${path}?status=retrying`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect((await api().get(`${path}?limit=5`)).body.error.code).toBe('INVALID_LIMIT');
  });

  describe('roles (spec §5.6)', () => {
    let hookId: string;
    beforeAll(async () => {
      hookId = (await create({ url: URL_OK, events: ['RUN_FINISHED'] })).body.data._id;
    });

    it('lets an admin manage webhooks', async () => {
      const a = await admin.member(t.orgId, 'admin', { projects: [t.projectId] });
      const res = await testApi(a.token).post(base(), { url: URL_OK, events: ['RUN_STARTED'] });
      expect(res.status).toBe(201);
      expect((await testApi(a.token).patch(`${base()}/${res.body.data._id}`, { description: 'by admin' })).status).toBe(200);
      expect((await testApi(a.token).delete(`${base()}/${res.body.data._id}`)).status).toBe(200);
    });

    it.each(['member', 'viewer'] as const)('refuses create, update and delete to a %s (403) but lets it read', async (role) => {
      const m = await admin.member(t.orgId, role, { projects: [t.projectId] });
      const mapi = testApi(m.token);
      for (const res of [
        await mapi.post(base(), { url: URL_OK, events: ['RUN_STARTED'] }),
        await mapi.patch(`${base()}/${hookId}`, { active: false }),
        await mapi.delete(`${base()}/${hookId}`),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
      }
      expect((await mapi.get(base())).status).toBe(200);
      expect((await mapi.get(`${base()}/${hookId}`)).body.data.active).toBe(true);
      expect((await mapi.get(`${base()}/${hookId}/deliveries`)).status).toBe(200);
    });

    it('refuses a project api key on management and on reads (403: it is no organization member)', async () => {
      const key = await admin.apiKey(t.projectId);
      const kapi = testApi(key.token);
      for (const res of [
        await kapi.post(base(), { url: URL_OK, events: ['RUN_STARTED'] }),
        await kapi.patch(`${base()}/${hookId}`, { active: false }),
        await kapi.delete(`${base()}/${hookId}`),
        await kapi.get(base()),
        await kapi.get(`${base()}/${hookId}`),
        await kapi.get(`${base()}/${hookId}/deliveries`),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('FORBIDDEN');
      }
    });

    it('answers 404 for another project’s subscription and for a project the token does not cover', async () => {
      const other = await admin.tenant('owner');
      const oapi = testApi(other.token);
      for (const res of [
        await oapi.get(`/${other.projectId}/webhooks/${hookId}`),
        await oapi.patch(`/${other.projectId}/webhooks/${hookId}`, { active: false }),
        await oapi.delete(`/${other.projectId}/webhooks/${hookId}`),
        await oapi.get(`/${other.projectId}/webhooks/${hookId}/deliveries`),
        await oapi.get(`/${t.projectId}/webhooks`),
        await oapi.post(`/${t.projectId}/webhooks`, { url: URL_OK, events: ['RUN_STARTED'] }),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('NOT_FOUND');
      }
      expect((await api().get(`${base()}/${hookId}`)).body.data.active).toBe(true);
    });

    it('answers 401 without a token', async () => {
      const res = await testApi().get(base());
      expect(res.status).toBe(401);
    });
  });
});

describe('fan-out bound (hardening)', () => {
  it('a project holds at most 50 subscriptions: the 51st create is 409 CONFLICT and nothing is written', async () => {
    const t = await admin.tenant('owner');
    const api = testApi(t.token);
    for (let i = 0; i < 50; i++) {
      const res = await api.post(`/${t.projectId}/webhooks`, { url: `https://h${i}.example.com/hook`, events: ['RUN_FINISHED'] });
      expect(res.status).toBe(201);
    }
    const over = await api.post(`/${t.projectId}/webhooks`, { url: 'https://over.example.com/hook', events: ['RUN_FINISHED'] });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('CONFLICT');
    expect((await api.get(`/${t.projectId}/webhooks?limit=10`)).body.pagination.total).toBe(50);
  });
});
