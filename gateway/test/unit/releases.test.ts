/**
 * The `releases` route family over `app.inject`, with an in-memory manual-testing service: the build target's
 * platform (any letter case) becomes the proto enum, null clears (`parentReleaseId`, lifecycle times), the
 * release JSON, and what the gateway refuses before any call.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { notFound } from '@assay/errors';
import { Platform, type UpdateReleaseRequest } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { AT, AT_JSON, expectRefusedBeforeCall, expectWritesForbidden, familyHarness } from './manual-testing';

const release = (over: Record<string, unknown> = {}) => ({
  id: 'r'.repeat(24),
  name: 'R1',
  depth: 1,
  buildTarget: { platform: Platform.ANDROID, version: '2.1' },
  testers: [{ id: 'u'.repeat(24), name: 'Alice', email: 'alice@example.test' }],
  linkedIssues: [{ displayId: 'J-1' }],
  isStarted: true,
  startedAt: AT,
  createdAt: AT,
  updatedAt: AT,
  ...over,
});

const f = familyHarness('releases', {
  async createRelease() {
    return { release: release() };
  },
  async updateRelease() {
    return { release: release({ buildTarget: undefined }) };
  },
  async getRelease(req) {
    if (req.releaseId === 'missing') throw notFound('Release');
    return { release: release() };
  },
  async listReleases() {
    return { releases: [release()], page: { page: 1, limit: 10, total: 1n } };
  },
});

describe('releases routes', () => {
  it('create: the platform in any letter case becomes the enum, lists default to empty; answers 201 with the release', async () => {
    const res = await f.h.request({
      as: 'member',
      method: 'POST',
      url: f.url,
      payload: {
        name: 'R1',
        parentReleaseId: 'p'.repeat(24),
        buildTarget: { platform: 'Android', buildNumber: '7' },
        startDate: '2026-01-01',
      },
    });
    expect(res.statusCode).toBe(201);
    expect(f.h.calls[0]).toMatchObject({
      method: 'createRelease',
      request: {
        projectId: f.h.projectId,
        name: 'R1',
        parentReleaseId: 'p'.repeat(24),
        startDate: '2026-01-01',
        buildTarget: { platform: Platform.ANDROID, buildNumber: '7' },
        testers: [],
        linkedIssues: [],
      },
      principal: f.h.caller('member').principal,
    });
    expect(res.json().data).toEqual({
      _id: 'r'.repeat(24),
      name: 'R1',
      description: '',
      note: '',
      type: null,
      parentReleaseId: null,
      depth: 1,
      startDate: null,
      endDate: null,
      branch: null,
      environment: null,
      linkedIssues: [{ displayId: 'J-1' }],
      buildTarget: { platform: 'android', version: '2.1' },
      testers: [{ _id: 'u'.repeat(24), name: 'Alice', email: 'alice@example.test' }],
      isStarted: true,
      startedAt: AT_JSON,
      isCompleted: false,
      completedAt: null,
      metadata: { lastModifiedBy: null },
      createdAt: AT_JSON,
      updatedAt: AT_JSON,
    });
  });

  it('create: a platform that names nothing reaches the service as UNSPECIFIED', async () => {
    await f.h.request({ method: 'POST', url: f.url, payload: { name: 'R', buildTarget: { platform: 'windows' } } });
    expect(f.h.calls[0]!.request).toMatchObject({ buildTarget: { platform: Platform.UNSPECIFIED } });
  });

  it('update: null clears the parent and the lifecycle times, a time is sent as a timestamp, lists are wrapped', async () => {
    const res = await f.h.request({
      method: 'PATCH',
      url: `${f.url}/${'r'.repeat(24)}`,
      payload: {
        parentReleaseId: null,
        startedAt: null,
        completedAt: '2026-02-03T04:05:06.000Z',
        isCompleted: true,
        testers: ['a@b.test'],
        linkedIssues: [],
      },
    });
    expect(res.statusCode).toBe(200);
    const req = f.h.calls[0]!.request as UpdateReleaseRequest;
    expect(req).toMatchObject({
      releaseId: 'r'.repeat(24),
      parentReleaseId: {},
      startedAt: {},
      completedAt: { value: timestampFromDate(new Date('2026-02-03T04:05:06.000Z')) },
      isCompleted: true,
      testers: { values: ['a@b.test'] },
      linkedIssues: { issues: [] },
    });
    expect([req.parentReleaseId!.value, req.startedAt!.value, req.buildTarget, req.name]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(res.json().data.buildTarget).toBeNull();
  });

  it('get and list: the release, 404 for one the service does not find; search and isCompleted reach the service', async () => {
    expect((await f.h.request({ as: 'viewer', method: 'GET', url: `${f.url}/${'r'.repeat(24)}` })).json().data._id).toBe('r'.repeat(24));
    expect((await f.h.request({ method: 'GET', url: `${f.url}/missing` })).statusCode).toBe(404);
    const list = await f.h.request({ method: 'GET', url: `${f.url}?search=beta&isCompleted=true` });
    expect(list.statusCode).toBe(200);
    expect(f.h.calls[2]!.request).toMatchObject({ search: 'beta', isCompleted: true, page: { page: 1, limit: 10 } });
    expect(list.json().pagination).toMatchObject({ total: 1, hasNext: false });
  });

  it.each([
    ['no name', 'POST', '', {}, 'body.name'],
    ['a name over 255 characters', 'POST', '', { name: 'n'.repeat(256) }, 'body.name'],
    ['a start date that is no date', 'POST', '', { name: 'n', startDate: 'soon' }, 'body.startDate'],
    ['lifecycle fields on create', 'POST', '', { name: 'n', isStarted: true }, 'body.isStarted'],
    ['a build target without a platform', 'POST', '', { name: 'n', buildTarget: { version: '1' } }, 'body.buildTarget.platform'],
    ['a linked issue with an unknown field', 'POST', '', { name: 'n', linkedIssues: [{ key: 'J-1' }] }, 'body.linkedIssues.0.key'],
    ['an empty update', 'PATCH', '/r', {}, 'body'],
    ['a started time that is no date-time', 'PATCH', '/r', { startedAt: '2026-01-01' }, 'body.startedAt'],
  ] as const)('refuses %s with 400 before calling the service', (_label, method, suffix, payload, path) =>
    expectRefusedBeforeCall(f, method, suffix, payload, path),
  );

  it('writes need a member or more (403 for viewers and api keys, no call)', () =>
    expectWritesForbidden(f, [
      ['POST', '', { name: 'x' }],
      ['PATCH', '/r', { isStarted: true }],
    ]));
});
