/**
 * The `sessions` route family over `app.inject`, with an in-memory manual-testing service: `status` (closing,
 * and the list filter) becomes the proto enum, null detaches the release and unassigns, the session JSON, and
 * what the gateway refuses before any call.
 */
import { notFound } from '@assay/errors';
import { RecordStatus, type UpdateSessionRequest } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { AT, AT_JSON, expectRefusedBeforeCall, expectWritesForbidden, familyHarness } from './manual-testing';

const session = (over: Record<string, unknown> = {}) => ({
  id: 's'.repeat(24),
  name: 'Explore',
  mission: '<p>m</p>',
  assignee: { id: 'u'.repeat(24), name: 'Alice', email: 'alice@example.test' },
  estimate: 30,
  tags: ['a'],
  status: RecordStatus.OPEN,
  lastModifiedBy: { id: 'x', name: 'Ada', email: 'ada@example.test' },
  createdAt: AT,
  updatedAt: AT,
  ...over,
});

const f = familyHarness('sessions', {
  async createSession() {
    return { session: session() };
  },
  async updateSession() {
    return { session: session({ status: RecordStatus.CLOSED, closedAt: AT, assignee: undefined }) };
  },
  async getSession(req) {
    if (req.sessionId === 'missing') throw notFound('Session');
    return { session: session() };
  },
  async listSessions() {
    return { sessions: [session()], page: { page: 1, limit: 10, total: 1n } };
  },
});

describe('sessions routes', () => {
  it('create: forwards the body (lists default to empty) and answers 201 with the session JSON', async () => {
    const res = await f.h.request({
      as: 'admin',
      method: 'POST',
      url: f.url,
      payload: { name: 'Explore', assigneeUserId: 'alice@example.test', releaseId: 'r'.repeat(24), estimate: 30 },
    });
    expect(res.statusCode).toBe(201);
    expect(f.h.calls[0]).toMatchObject({
      method: 'createSession',
      request: {
        projectId: f.h.projectId,
        name: 'Explore',
        assigneeUserId: 'alice@example.test',
        releaseId: 'r'.repeat(24),
        estimate: 30,
        tags: [],
        linkedIssues: [],
      },
      principal: f.h.caller('admin').principal,
    });
    expect(res.json().data).toEqual({
      _id: 's'.repeat(24),
      name: 'Explore',
      mission: '<p>m</p>',
      sessionType: null,
      config: null,
      environment: null,
      releaseId: null,
      assignee: { _id: 'u'.repeat(24), name: 'Alice', email: 'alice@example.test' },
      state: null,
      estimate: 30,
      tags: ['a'],
      linkedIssues: [],
      status: 'open',
      closedAt: null,
      metadata: { lastModifiedBy: { name: 'Ada', email: 'ada@example.test' } },
      createdAt: AT_JSON,
      updatedAt: AT_JSON,
    });
  });

  it('update: `closed` becomes RecordStatus.CLOSED, null detaches and unassigns, tags are wrapped', async () => {
    const res = await f.h.request({
      method: 'PATCH',
      url: `${f.url}/${'s'.repeat(24)}`,
      payload: { status: 'closed', releaseId: null, assigneeUserId: null, estimate: null, tags: ['x'] },
    });
    expect(res.statusCode).toBe(200);
    const req = f.h.calls[0]!.request as UpdateSessionRequest;
    expect(req).toMatchObject({
      sessionId: 's'.repeat(24),
      status: RecordStatus.CLOSED,
      releaseId: {},
      assigneeUserId: {},
      estimateMinutes: {},
      tags: { values: ['x'] },
    });
    expect([req.releaseId!.value, req.assigneeUserId!.value, req.estimateMinutes!.value, req.estimate, req.linkedIssues]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(res.json().data).toMatchObject({ status: 'closed', closedAt: AT_JSON, assignee: null });
    await f.h.request({
      method: 'PATCH',
      url: `${f.url}/${'s'.repeat(24)}`,
      payload: { assigneeUserId: 'bob@example.test', estimate: 20 },
    });
    expect(f.h.calls[1]!.request).toMatchObject({
      assigneeUserId: { value: 'bob@example.test' },
      estimateMinutes: { value: 20 },
      estimate: 20,
    });
    expect((f.h.calls[1]!.request as UpdateSessionRequest).status).toBeUndefined();
  });

  it('list: the status filter becomes the enum; get: 404 for a session the service does not find', async () => {
    const list = await f.h.request({ as: 'api_key', method: 'GET', url: `${f.url}?status=closed&limit=50` });
    expect(list.statusCode).toBe(200);
    expect(f.h.calls[0]!.request).toMatchObject({ status: RecordStatus.CLOSED, page: { page: 1, limit: 50 } });
    expect((await f.h.request({ method: 'GET', url: f.url })).statusCode).toBe(200);
    expect((f.h.calls[1]!.request as { status?: RecordStatus }).status).toBeUndefined();
    expect((await f.h.request({ method: 'GET', url: `${f.url}/missing` })).json().error.code).toBe('NOT_FOUND');
  });

  it.each([
    ['an unknown status filter', 'GET', '?status=paused', undefined, 'query.status'],
    ['no name', 'POST', '', {}, 'body.name'],
    ['a negative estimate', 'POST', '', { name: 'n', estimate: -1 }, 'body.estimate'],
    ['a fractional estimate', 'POST', '', { name: 'n', estimate: 1.5 }, 'body.estimate'],
    ['status on create', 'POST', '', { name: 'n', status: 'closed' }, 'body.status'],
    ['a status other than closed', 'PATCH', '/s', { status: 'open' }, 'body.status'],
    ['an empty update', 'PATCH', '/s', {}, 'body'],
  ] as const)('refuses %s with 400 before calling the service', (_label, method, suffix, payload, path) =>
    expectRefusedBeforeCall(f, method, suffix, payload, path),
  );

  it('writes need a member or more (403 for viewers and api keys, no call)', () =>
    expectWritesForbidden(f, [
      ['POST', '', { name: 'x' }],
      ['PATCH', '/s', { status: 'closed' }],
    ]));
});
