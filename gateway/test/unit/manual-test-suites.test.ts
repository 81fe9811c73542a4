/**
 * The `manual-test-suites` route family over `app.inject`, with an in-memory manual-testing service: what each
 * route asks the service (null `parentSuiteId` = move to the top), the suite tree JSON it answers, and what the
 * gateway refuses before any call.
 */
import { notFound } from '@assay/errors';
import { AT, AT_JSON, expectRefusedBeforeCall, expectWritesForbidden, familyHarness } from './manual-testing';

const suite = (over: Record<string, unknown> = {}) => ({
  id: 'a'.repeat(24),
  name: 'Checkout',
  description: 'd',
  order: 1,
  depth: 1,
  childSuitesCount: 1,
  children: [
    { id: 'b'.repeat(24), name: 'Cards', order: 1, depth: 2, parentSuite: { id: 'a'.repeat(24), name: 'Checkout' }, updatedAt: AT },
  ],
  lastModifiedBy: { id: 'u', name: 'Ada', email: 'ada@example.test' },
  updatedAt: AT,
  ...over,
});

const f = familyHarness('manual-test-suites', {
  async createSuite(req) {
    return { suite: suite({ name: req.name, children: [], childSuitesCount: 0 }) };
  },
  async updateSuite(req) {
    if (req.suiteId === 'missing') throw notFound('Suite');
    return { suite: suite({ id: req.suiteId }) };
  },
  async listSuites() {
    return { suites: [suite()], page: { page: 2, limit: 10, total: 11n } };
  },
});

describe('manual-test-suites routes', () => {
  it('create: forwards the body and the caller, answers 201 with the suite shape', async () => {
    const res = await f.h.request({
      as: 'member',
      method: 'POST',
      url: f.url,
      payload: { name: 'Checkout', parentSuiteId: 'p'.repeat(24) },
    });
    expect(res.statusCode).toBe(201);
    expect(f.h.calls).toEqual([
      {
        method: 'createSuite',
        request: expect.objectContaining({ projectId: f.h.projectId, name: 'Checkout', parentSuiteId: 'p'.repeat(24) }),
        principal: f.h.caller('member').principal,
      },
    ]);
    expect(res.json().data).toEqual({
      _id: 'a'.repeat(24),
      name: 'Checkout',
      description: 'd',
      metadata: { lastModifiedBy: { name: 'Ada', email: 'ada@example.test' } },
      hierarchy: { parentSuite: null, order: 1, depth: 1 },
      childSuitesCount: 0,
      children: [],
      updatedAt: AT_JSON,
    });
  });

  it('update: null parentSuiteId becomes a present-but-empty NullableString (move to the top); children nest', async () => {
    const res = await f.h.request({ method: 'PATCH', url: `${f.url}/${'a'.repeat(24)}`, payload: { parentSuiteId: null } });
    expect(res.statusCode).toBe(200);
    expect(f.h.calls[0]!.request).toMatchObject({ suiteId: 'a'.repeat(24), parentSuiteId: {} });
    expect((f.h.calls[0]!.request as { parentSuiteId: { value?: string } }).parentSuiteId.value).toBeUndefined();
    expect(res.json().data.children[0]).toMatchObject({
      _id: 'b'.repeat(24),
      hierarchy: { parentSuite: { _id: 'a'.repeat(24), name: 'Checkout' }, order: 1, depth: 2 },
      metadata: { lastModifiedBy: null },
      description: '',
    });
    await f.h.request({ method: 'PATCH', url: `${f.url}/${'a'.repeat(24)}`, payload: { parentSuiteId: 'c'.repeat(24) } });
    expect(f.h.calls[1]!.request).toMatchObject({ parentSuiteId: { value: 'c'.repeat(24) } });
  });

  it('update: a suite the service does not find is 404 NOT_FOUND', async () => {
    const res = await f.h.request({ method: 'PATCH', url: `${f.url}/missing`, payload: { name: 'x' } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('NOT_FOUND');
  });

  it('list: the page reaches the service, the answer carries the pagination; a bad limit is refused', async () => {
    const res = await f.h.request({ method: 'GET', url: `${f.url}?page=2&limit=10&other=1` });
    expect(res.statusCode).toBe(200);
    expect(f.h.calls[0]!.request).toMatchObject({ page: { page: 2, limit: 10 } });
    expect(res.json().pagination).toEqual({ page: 2, limit: 10, total: 11, hasNext: false, hasPrev: true, hasMore: false });
    expect(res.json().data[0].children).toHaveLength(1);
    expect((await f.h.request({ method: 'GET', url: `${f.url}?limit=7` })).json().error.code).toBe('INVALID_LIMIT');
  });

  it.each([
    ['a blank name', 'POST', '', { name: '   ' }, 'body.name'],
    ['a name over 500 characters', 'POST', '', { name: 'n'.repeat(501) }, 'body.name'],
    ['a description over 2000 characters', 'POST', '', { name: 'n', description: 'd'.repeat(2001) }, 'body.description'],
    ['an unknown property', 'POST', '', { name: 'n', order: 2 }, 'body.order'],
    ['an empty update', 'PATCH', '/x', {}, 'body'],
    ['a parentSuiteId over 128 characters', 'PATCH', '/x', { parentSuiteId: 'p'.repeat(129) }, 'body.parentSuiteId'],
  ] as const)('refuses %s with 400 before calling the service', (_label, method, suffix, payload, path) =>
    expectRefusedBeforeCall(f, method, suffix, payload, path),
  );

  it('writes need a member or more (403 for viewers and api keys, no call); reads are open to both', async () => {
    await expectWritesForbidden(f, [
      ['POST', '', { name: 'x' }],
      ['PATCH', '/x', { name: 'x' }],
    ]);
    for (const as of ['viewer', 'api_key'] as const) expect((await f.h.request({ as, method: 'GET', url: f.url })).statusCode).toBe(200);
  });
});
