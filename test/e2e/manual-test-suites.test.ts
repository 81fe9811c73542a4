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

  it.each<[string, unknown, string, string]>([
    ['an empty name', { name: '' }, 'body.name', 'must not be empty'],
    ['a blank name', { name: '   ' }, 'body.name', 'must not be empty'],
    ['a name of 501 characters', { name: 'n'.repeat(501) }, 'body.name', 'must be at most 500 characters'],
    [
      'a description of 2001 characters',
      { name: 'd', description: 'd'.repeat(2001) },
      'body.description',
      'must be at most 2000 characters',
    ],
  ])("%s is refused in the words the services use, not the validator's", async (_label, body, path, message) => {
    const res = await create(body);
    expect([res.status, res.body.error]).toEqual([
      400,
      { code: 'VALIDATION_ERROR', message: `${path}: ${message}`, details: [{ path, message }] },
    ]);
  });

  it('an update naming no field is refused with that reason', async () => {
    const made = await create({ name: 'Kept' });
    expect(made.status).toBe(201);
    const res = await testApi(t.token).patch(`/${t.projectId}/manual-test-suites/${made.body.data._id}`, {});
    expect([res.status, res.body.error]).toEqual([
      400,
      {
        code: 'VALIDATION_ERROR',
        message: 'body: must name at least one field',
        details: [{ path: 'body', message: 'must name at least one field' }],
      },
    ]);
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

describe('manual test suites: update and move (PATCH)', () => {
  const post = async (p: Tenant, body: unknown) => (await testApi(p.token).post(`/${p.projectId}/manual-test-suites`, body)).body.data;
  const patch = (p: Tenant, id: string, body: unknown) => testApi(p.token).patch(`/${p.projectId}/manual-test-suites/${id}`, body);
  const tree = async (p: Tenant) => (await testApi(p.token).get(`/${p.projectId}/manual-test-suites?limit=100`)).body.data;

  it('renames and describes a suite, records who changed it, and answers the §2.4 shape with its subtree', async () => {
    const p = await admin.tenant('owner');
    const a = await post(p, { name: 'A', description: 'old' });
    const child = await post(p, { name: 'A1', parentSuiteId: a._id });
    const editor = await admin.member(p.orgId, 'member', { projects: [p.projectId] });
    const res = await testApi(editor.token).patch(`/${p.projectId}/manual-test-suites/${a._id}`, { name: 'Renamed', description: 'new' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      _id: a._id,
      name: 'Renamed',
      description: 'new',
      metadata: { lastModifiedBy: { name: editor.name, email: editor.email } },
      hierarchy: { parentSuite: null, order: 1, depth: 1 },
      childSuitesCount: 1,
      children: [
        expect.objectContaining({ _id: child._id, hierarchy: { parentSuite: { _id: a._id, name: 'Renamed' }, order: 1, depth: 2 } }),
      ],
      updatedAt: expect.stringMatching(ISO),
    });
    // only description: the name stays
    expect((await patch(p, a._id, { description: '' })).body.data).toMatchObject({ name: 'Renamed', description: '' });
  });

  it('moves a suite with its subtree under another suite, to the end of its children, and closes the gap it leaves', async () => {
    const p = await admin.tenant('owner');
    const a = await post(p, { name: 'A' });
    const b = await post(p, { name: 'B' });
    const c = await post(p, { name: 'C' });
    const b1 = await post(p, { name: 'B1', parentSuiteId: b._id });
    const a1 = await post(p, { name: 'A1', parentSuiteId: a._id });
    const res = await patch(p, b._id, { parentSuiteId: a._id });
    expect(res.status).toBe(200);
    expect(res.body.data.hierarchy).toEqual({ parentSuite: { _id: a._id, name: 'A' }, order: 2, depth: 2 });
    expect(res.body.data.children[0]).toMatchObject({
      _id: b1._id,
      hierarchy: { parentSuite: { _id: b._id, name: 'B' }, order: 1, depth: 3 },
    });
    const roots = await tree(p);
    expect(roots.map((s: any) => [s.name, s.hierarchy.order])).toEqual([
      ['A', 1],
      ['C', 2],
    ]);
    expect(roots[0].children.map((s: any) => s._id)).toEqual([a1._id, b._id]);
    expect(roots[0].childSuitesCount).toBe(2);
    // and back to the top level with null: appended after the other roots
    const top = await patch(p, b._id, { parentSuiteId: null });
    expect(top.body.data.hierarchy).toEqual({ parentSuite: null, order: 3, depth: 1 });
    expect(top.body.data.children[0].hierarchy.depth).toBe(2);
    expect((await tree(p)).map((s: any) => s._id)).toEqual([a._id, c._id, b._id]);
  });

  it('moves only while the deepest suite of the moved subtree stays at depth ≤ 6', async () => {
    const p = await admin.tenant('owner');
    // chain X1 … X4 (depths 1-4) and a subtree Y (depth 1) with Y2 under it (depth 2)
    let parent = await post(p, { name: 'X1' });
    for (let d = 2; d <= 4; d++) parent = await post(p, { name: `X${d}`, parentSuiteId: parent._id });
    const x4 = parent;
    const x5 = await post(p, { name: 'X5', parentSuiteId: x4._id });
    const y = await post(p, { name: 'Y' });
    await post(p, { name: 'Y2', parentSuiteId: y._id });
    // under X4: Y at 5, Y2 at 6 → allowed
    const ok = await patch(p, y._id, { parentSuiteId: x4._id });
    expect(ok.status).toBe(200);
    expect(ok.body.data.children[0].hierarchy.depth).toBe(6);
    // under X5: Y2 would be at 7 → refused, nothing moved
    const tooDeep = await patch(p, y._id, { parentSuiteId: x5._id });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.error.code).toBe('VALIDATION_ERROR');
    expect(tooDeep.body.error.details[0].path).toBe('body.parentSuiteId');
    const again = await testApi(p.token).get(`/${p.projectId}/manual-test-suites?limit=100`);
    expect(JSON.stringify(again.body)).toContain(`"parentSuite":{"_id":"${x4._id}","name":"X4"},"order":2,"depth":5`);
  });

  it('refuses to move a suite under itself or one of its sub-suites (no cycles)', async () => {
    const p = await admin.tenant('owner');
    const a = await post(p, { name: 'A' });
    const a1 = await post(p, { name: 'A1', parentSuiteId: a._id });
    const a11 = await post(p, { name: 'A11', parentSuiteId: a1._id });
    for (const target of [a._id, a1._id, a11._id]) {
      const res = await patch(p, a._id, { parentSuiteId: target });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].path).toBe('body.parentSuiteId');
    }
    expect((await tree(p))[0].hierarchy.depth).toBe(1);
  });

  it.each<[string, unknown, number]>([
    ['an empty body', {}, 400],
    ['a name of 500 characters', { name: 'n'.repeat(500) }, 200],
    ['a name of 501 characters', { name: 'n'.repeat(501) }, 400],
    ['a blank name', { name: '  ' }, 400],
    ['a description of 2000 characters', { description: 'd'.repeat(2000) }, 200],
    ['a description of 2001 characters', { description: 'd'.repeat(2001) }, 400],
    ['an unknown parent', { parentSuiteId: '0123456789abcdef01234567' }, 400],
    ['an unknown property', { order: 2 }, 400],
  ])('%s → %i', async (_label, body, status) => {
    const p = await admin.tenant('owner');
    const s = await post(p, { name: 'S' });
    const res = await patch(p, s._id, body);
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('answers 404 for an unknown suite or one of another project, and 403 to a viewer', async () => {
    const p = await admin.tenant('owner');
    const other = await admin.tenant('owner');
    const foreign = await post(other, { name: 'F' });
    expect((await patch(p, '0123456789abcdef01234567', { name: 'x' })).status).toBe(404);
    expect((await patch(p, foreign._id, { name: 'x' })).body.error.code).toBe('NOT_FOUND');
    const mine = await post(p, { name: 'Mine' });
    expect((await patch(p, mine._id, { parentSuiteId: foreign._id })).status).toBe(400);
    const viewer = await admin.member(p.orgId, 'viewer', { projects: [p.projectId] });
    const res = await testApi(viewer.token).patch(`/${p.projectId}/manual-test-suites/${mine._id}`, { name: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect((await tree(p))[0].name).toBe('Mine');
  });
});
