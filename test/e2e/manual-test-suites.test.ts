/** The first service through the whole path: create suite (spec §4.4) and the tree read (spec §2.4). */
import { testAdmin, testApi, type Tenant } from '@assay/testkit';

const admin = testAdmin();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('manual test suites', () => {
  let t: Tenant;
  const create = (body: unknown) => testApi(t.token).post(`/${t.projectId}/manual-test-suites`, body);
  beforeAll(async () => {
    t = await admin.tenant('owner');
  });

  it('creates a root suite (201) in the exact shape of spec §2.4', async () => {
    const res = await create({ name: 'Checkout', description: 'Payment flows' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name: 'Checkout',
        description: 'Payment flows',
        metadata: { lastModifiedBy: { name: t.name, email: t.email } },
        hierarchy: { parentSuite: null, order: expect.any(Number), depth: 1 },
        childSuitesCount: 0,
        children: [],
        updatedAt: expect.stringMatching(ISO),
      },
    });
  });

  it('nests to depth 6 and refuses depth 7 without writing anything', async () => {
    let parent = (await create({ name: 'L1' })).body.data;
    for (let depth = 2; depth <= 6; depth++) {
      const res = await create({ name: `L${depth}`, parentSuiteId: parent._id });
      expect(res.status).toBe(201);
      expect(res.body.data.hierarchy).toEqual({ parentSuite: { _id: parent._id, name: parent.name }, order: 1, depth });
      parent = res.body.data;
    }
    const tooDeep = await create({ name: 'L7', parentSuiteId: parent._id });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.error.code).toBe('VALIDATION_ERROR');
    expect(tooDeep.body.error.details[0].path).toBe('body.parentSuiteId');
    const list = await testApi(t.token).get(`/${t.projectId}/manual-test-suites?limit=100`);
    expect(JSON.stringify(list.body)).not.toContain('"L7"');
  });

  it('refuses an unknown parent and a parent of another project', async () => {
    expect((await create({ name: 'x', parentSuiteId: '0123456789abcdef01234567' })).status).toBe(400);
    const other = await admin.tenant('owner');
    const foreign = (await testApi(other.token).post(`/${other.projectId}/manual-test-suites`, { name: 'foreign' })).body.data;
    const res = await create({ name: 'x', parentSuiteId: foreign._id });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it.each([
    ['name of 500 characters', { name: 'n'.repeat(500) }, 201],
    ['name of 501 characters', { name: 'n'.repeat(501) }, 400],
    ['empty name', { name: '' }, 400],
    ['blank name', { name: '   ' }, 400],
    ['missing name', { description: 'd' }, 400],
    ['description of 2000 characters', { name: 'd', description: 'd'.repeat(2000) }, 201],
    ['description of 2001 characters', { name: 'd', description: 'd'.repeat(2001) }, 400],
    ['name that is not a string', { name: 42 }, 400],
    ['unknown property', { name: 'x', order: 3 }, 400],
  ])('%s → %i', async (_label, body, status) => {
    const res = await create(body);
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('lists root suites with nested children, in order, without internal fields', async () => {
    const p = await admin.tenant('owner');
    const post = (body: unknown) => testApi(p.token).post(`/${p.projectId}/manual-test-suites`, body);
    const a = (await post({ name: 'A' })).body.data;
    const b = (await post({ name: 'B' })).body.data;
    const a1 = (await post({ name: 'A1', parentSuiteId: a._id })).body.data;
    const a2 = (await post({ name: 'A2', parentSuiteId: a._id })).body.data;
    const a1x = (await post({ name: 'A1x', parentSuiteId: a1._id })).body.data;
    const res = await testApi(p.token).get(`/${p.projectId}/manual-test-suites`);
    expect(res.status).toBe(200);
    expect(res.body.pagination).toMatchObject({ total: 2, page: 1, limit: 10 });
    const [ra, rb] = res.body.data;
    expect([ra._id, rb._id]).toEqual([a._id, b._id]);
    expect([ra.hierarchy.order, rb.hierarchy.order]).toEqual([1, 2]);
    expect(ra.childSuitesCount).toBe(2);
    expect(ra.children.map((c: any) => c._id)).toEqual([a1._id, a2._id]);
    expect(ra.children[0].children.map((c: any) => c._id)).toEqual([a1x._id]);
    expect(ra.children[0].children[0].hierarchy).toEqual({ parentSuite: { _id: a1._id, name: 'A1' }, order: 1, depth: 3 });
    expect(rb.childSuitesCount).toBe(0);
    const walk = (s: any) => {
      expect(Object.keys(s).sort()).toEqual([
        '_id',
        'childSuitesCount',
        'children',
        'description',
        'hierarchy',
        'metadata',
        'name',
        'updatedAt',
      ]);
      expect(Object.keys(s.metadata)).toEqual(['lastModifiedBy']);
      expect(Object.keys(s.metadata.lastModifiedBy ?? {}).sort()).toEqual(['email', 'name']);
      s.children.forEach(walk);
    };
    res.body.data.forEach(walk);
  });
});
