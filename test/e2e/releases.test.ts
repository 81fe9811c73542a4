/**
 * Releases over HTTP: create and update bodies of spec §4.4 (nesting ≤ 3, lifecycle fields on update only,
 * testers checked against the organization's members, build target platforms, sanitized note), reads with
 * the write field names, list filters, roles.
 */
import { testApi } from '@assay/testkit';
import { admin, expectValidation, ID, ISO, newProject, type Project } from './support/manual-testing';

const RELEASE_KEYS = [
  '_id',
  'branch',
  'buildTarget',
  'completedAt',
  'createdAt',
  'depth',
  'description',
  'endDate',
  'environment',
  'isCompleted',
  'isStarted',
  'linkedIssues',
  'metadata',
  'name',
  'note',
  'parentReleaseId',
  'startDate',
  'startedAt',
  'testers',
  'type',
  'updatedAt',
];

async function makeRelease(p: Project, body: Record<string, unknown>, api = p.api): Promise<any> {
  const res = await api.post(`${p.P}/releases`, body);
  if (res.status !== 201) throw new Error(`release create failed: ${res.status} ${res.text}`);
  return res.body.data;
}

describe('releases: create', () => {
  let p: Project;
  beforeAll(async () => {
    p = await newProject('owner');
  });

  it('answers 201 with every field, testers resolved to members, the note sanitized', async () => {
    const tester = await p.writer('viewer');
    const res = await p.api.post(`${p.P}/releases`, {
      name: '2.4.0',
      description: 'Spring release',
      note: '<p>Ship <b>it</b><script>alert(1)</script><img src="javascript:alert(1)" onerror="x()"><a href="javascript:evil()">x</a></p>',
      type: 'minor',
      startDate: '2025-03-01',
      endDate: '2025-03-31',
      branch: 'release/2.4',
      environment: 'staging',
      linkedIssues: [{ provider: 'jira', displayId: 'REL-1', url: 'https://jira.example.test/REL-1', title: 'Release 2.4' }],
      buildTarget: { platform: 'iOS', version: '2.4.0', buildNumber: '240', source: 'testflight', deployUrl: 'https://x.test/b/240' },
      testers: [tester.user.userId, p.t.email],
    });
    expect(res.status).toBe(201);
    const r = res.body.data;
    expect(Object.keys(r).sort()).toEqual(RELEASE_KEYS);
    expect(r).toEqual({
      _id: expect.stringMatching(ID),
      name: '2.4.0',
      description: 'Spring release',
      note: '<p>Ship <b>it</b><a rel="noopener noreferrer">x</a></p>',
      type: 'minor',
      parentReleaseId: null,
      depth: 1,
      startDate: '2025-03-01',
      endDate: '2025-03-31',
      branch: 'release/2.4',
      environment: 'staging',
      linkedIssues: [{ provider: 'jira', displayId: 'REL-1', url: 'https://jira.example.test/REL-1', title: 'Release 2.4' }],
      buildTarget: { platform: 'ios', version: '2.4.0', buildNumber: '240', source: 'testflight', deployUrl: 'https://x.test/b/240' },
      testers: [
        { _id: tester.user.userId, name: tester.user.name, email: tester.user.email },
        { _id: p.t.userId, name: p.t.name, email: p.t.email },
      ],
      isStarted: false,
      startedAt: null,
      isCompleted: false,
      completedAt: null,
      metadata: { lastModifiedBy: { name: p.t.name, email: p.t.email } },
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(r.note).not.toMatch(/script|onerror|javascript/i);
  });

  it('has defaults for a release with only a name', async () => {
    const r = await makeRelease(p, { name: 'Bare' });
    expect(r).toMatchObject({
      description: '',
      note: '',
      type: null,
      startDate: null,
      endDate: null,
      branch: null,
      environment: null,
      linkedIssues: [],
      buildTarget: null,
      testers: [],
    });
  });

  it('nests up to 3 levels and refuses a 4th', async () => {
    const l1 = await makeRelease(p, { name: 'L1' });
    const l2 = await makeRelease(p, { name: 'L2', parentReleaseId: l1._id });
    const l3 = await makeRelease(p, { name: 'L3', parentReleaseId: l2._id });
    expect([l1.depth, l2.depth, l3.depth]).toEqual([1, 2, 3]);
    expect(l3.parentReleaseId).toBe(l2._id);
    expectValidation(await p.api.post(`${p.P}/releases`, { name: 'L4', parentReleaseId: l3._id }), 'body.parentReleaseId');
    expectValidation(
      await p.api.post(`${p.P}/releases`, { name: 'x', parentReleaseId: '0123456789abcdef01234567' }),
      'body.parentReleaseId',
    );
    const list = await p.api.get(`${p.P}/releases?search=L4`);
    expect(list.body.data).toEqual([]);
  });

  it('refuses testers who are not members of the organization, naming each', async () => {
    const stranger = await admin.tenant('owner'); // a member of another organization only
    const res = await p.api.post(`${p.P}/releases`, { name: 'x', testers: [p.t.userId, stranger.userId, 'nobody@example.test'] });
    expectValidation(res);
    expect(res.body.error.details.map((d: any) => d.path)).toEqual(['body.testers.1', 'body.testers.2']);
  });

  it.each<[string, Record<string, unknown>, number, string?]>([
    ['a name of 255 characters', { name: 'n'.repeat(255) }, 201],
    ['a name of 256 characters', { name: 'n'.repeat(256) }, 400, 'body.name'],
    ['an empty name', { name: '' }, 400, 'body.name'],
    ['a blank name', { name: '   ' }, 400, 'body.name'],
    ['no name', { description: 'x' }, 400, 'body.name'],
    ...(['web', 'ios', 'android', 'api', 'Android', 'WEB'].map((platform) => [
      `platform ${platform}`,
      { name: 'x', buildTarget: { platform } },
      201,
    ]) as [string, Record<string, unknown>, number][]),
    ['platform desktop', { name: 'x', buildTarget: { platform: 'desktop' } }, 400, 'body.buildTarget.platform'],
    ['a build target without platform', { name: 'x', buildTarget: { version: '1' } }, 400, 'body.buildTarget.platform'],
    ['an unknown build target field', { name: 'x', buildTarget: { platform: 'web', os: 'x' } }, 400, 'body.buildTarget.os'],
    ['isStarted on create', { name: 'x', isStarted: true }, 400, 'body.isStarted'],
    ['isCompleted on create', { name: 'x', isCompleted: true }, 400, 'body.isCompleted'],
    ['startedAt on create', { name: 'x', startedAt: '2025-01-01T00:00:00Z' }, 400, 'body.startedAt'],
    ['completedAt on create', { name: 'x', completedAt: '2025-01-01T00:00:00Z' }, 400, 'body.completedAt'],
    ['ISO date-times for start and end', { name: 'x', startDate: '2025-03-01T08:00:00Z', endDate: '2025-03-02T08:00:00+02:00' }, 201],
    ['a startDate that is not a date', { name: 'x', startDate: 'next monday' }, 400, 'body.startDate'],
    ['an endDate before the startDate', { name: 'x', startDate: '2025-03-02', endDate: '2025-03-01' }, 400, 'body.endDate'],
    ['a linked issue with displayId only', { name: 'x', linkedIssues: [{ displayId: 'A-1' }] }, 201],
    ['a linked issue without displayId or url', { name: 'x', linkedIssues: [{ title: 'x' }] }, 400, 'body.linkedIssues.0'],
    ['a javascript: linked issue url', { name: 'x', linkedIssues: [{ url: 'javascript:alert(1)' }] }, 400, 'body.linkedIssues.0.url'],
    [
      'a data: linked issue url',
      { name: 'x', linkedIssues: [{ displayId: 'A-1', url: 'data:text/html,<script>x()</script>' }] },
      400,
      'body.linkedIssues.0.url',
    ],
    [
      'a javascript: deployUrl',
      { name: 'x', buildTarget: { platform: 'web', deployUrl: 'JavaScript:alert(1)' } },
      400,
      'body.buildTarget.deployUrl',
    ],
    ['an http deployUrl', { name: 'x', buildTarget: { platform: 'web', deployUrl: 'http://staging.example.test/' } }, 201],
    ['a linked issue with an unknown field', { name: 'x', linkedIssues: [{ displayId: 'A-1', key: 'x' }] }, 400, 'body.linkedIssues.0.key'],
    ['testers that are not strings', { name: 'x', testers: [1] }, 400, 'body.testers.0'],
    ['an unknown property', { name: 'x', version: '1' }, 400, 'body.version'],
  ])('%s → %i', async (...[, body, status, path]) => {
    const w = await p.writer();
    const res = await w.post(`${p.P}/releases`, body);
    expect(res.status).toBe(status);
    if (status === 400) expectValidation(res, path);
  });
});

describe('releases: update', () => {
  let p: Project;
  beforeAll(async () => {
    p = await newProject('owner');
  });

  it('changes only the fields sent', async () => {
    const r = await makeRelease(p, { name: 'R', branch: 'main', environment: 'qa', buildTarget: { platform: 'web' } });
    const w = await p.writer();
    const res = await w.patch(`${p.P}/releases/${r._id}`, { environment: 'prod', note: '<i>n</i><iframe src="x"></iframe>' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'R',
      branch: 'main',
      environment: 'prod',
      note: '<i>n</i>',
      buildTarget: { platform: 'web' },
    });
    expect(res.body.data.metadata.lastModifiedBy).toEqual({ name: w.user.name, email: w.user.email });
    expect(res.body.data.createdAt).toBe(r.createdAt);
  });

  it('accepts the lifecycle fields on update: flags stamp their times, explicit times win, false clears', async () => {
    const r = await makeRelease(p, { name: 'Life' });
    const started = (await p.api.patch(`${p.P}/releases/${r._id}`, { isStarted: true })).body.data;
    expect(started.isStarted).toBe(true);
    expect(started.startedAt).toMatch(ISO);
    expect(started.isCompleted).toBe(false);
    const completed = (
      await p.api.patch(`${p.P}/releases/${r._id}`, {
        isCompleted: true,
        completedAt: '2025-04-01T10:00:00Z',
        startedAt: '2025-03-01T09:00:00.000Z',
      })
    ).body.data;
    expect(completed).toMatchObject({
      isStarted: true,
      startedAt: '2025-03-01T09:00:00.000Z',
      isCompleted: true,
      completedAt: '2025-04-01T10:00:00.000Z',
    });
    const reopened = (await p.api.patch(`${p.P}/releases/${r._id}`, { isCompleted: false })).body.data;
    expect(reopened).toMatchObject({ isCompleted: false, completedAt: null, isStarted: true });
    const cleared = (await p.api.patch(`${p.P}/releases/${r._id}`, { startedAt: null })).body.data;
    expect(cleared.startedAt).toBeNull();
    expectValidation(await p.api.patch(`${p.P}/releases/${r._id}`, { isStarted: 'yes' }), 'body.isStarted');
    expectValidation(await p.api.patch(`${p.P}/releases/${r._id}`, { startedAt: 'yesterday' }), 'body.startedAt');
  });

  it('replaces testers, checking them against the organization', async () => {
    const r = await makeRelease(p, { name: 'T', testers: [p.t.userId] });
    const m = await p.writer();
    const u = (await p.api.patch(`${p.P}/releases/${r._id}`, { testers: [m.user.email] })).body.data;
    expect(u.testers).toEqual([{ _id: m.user.userId, name: m.user.name, email: m.user.email }]);
    const outsider = await admin.tenant('member');
    expectValidation(await p.api.patch(`${p.P}/releases/${r._id}`, { testers: [outsider.email] }), 'body.testers.0');
    expect((await p.api.get(`${p.P}/releases/${r._id}`)).body.data.testers).toEqual(u.testers);
  });

  it('moves releases while nesting stays ≤ 3 and never under themselves', async () => {
    const a = await makeRelease(p, { name: 'A' });
    const a2 = await makeRelease(p, { name: 'A2', parentReleaseId: a._id });
    const b = await makeRelease(p, { name: 'B' });
    const b2 = await makeRelease(p, { name: 'B2', parentReleaseId: b._id });
    // B (with B2) under A2 would put B2 at level 4
    expectValidation(await p.api.patch(`${p.P}/releases/${b._id}`, { parentReleaseId: a2._id }), 'body.parentReleaseId');
    // B under A: B at 2, B2 at 3
    const moved = (await p.api.patch(`${p.P}/releases/${b._id}`, { parentReleaseId: a._id })).body.data;
    expect(moved).toMatchObject({ parentReleaseId: a._id, depth: 2 });
    expect((await p.api.get(`${p.P}/releases/${b2._id}`)).body.data.depth).toBe(3);
    expectValidation(await p.api.patch(`${p.P}/releases/${a._id}`, { parentReleaseId: b2._id }), 'body.parentReleaseId');
    expectValidation(await p.api.patch(`${p.P}/releases/${a._id}`, { parentReleaseId: a._id }), 'body.parentReleaseId');
    const top = (await p.api.patch(`${p.P}/releases/${b._id}`, { parentReleaseId: null })).body.data;
    expect(top).toMatchObject({ parentReleaseId: null, depth: 1 });
    expect((await p.api.get(`${p.P}/releases/${b2._id}`)).body.data.depth).toBe(2);
  });

  it.each<[string, unknown]>([
    ['an empty body', {}],
    ['a name of 256 characters', { name: 'n'.repeat(256) }],
    ['a bad platform', { buildTarget: { platform: 'tv' } }],
    ['an end date before the stored start date', { endDate: '2024-12-31' }],
    ['an unknown property', { status: 'closed' }],
  ])('refuses %s (400, nothing written)', async (_label, body) => {
    const r = await makeRelease(p, { name: 'Keep', startDate: '2025-01-01' });
    expectValidation(await p.api.patch(`${p.P}/releases/${r._id}`, body));
    expect((await p.api.get(`${p.P}/releases/${r._id}`)).body.data).toEqual(r);
  });

  it('accepts a name of 255 characters on update; 404 for unknown releases; 403 for viewers', async () => {
    const r = await makeRelease(p, { name: 'N' });
    expect((await p.api.patch(`${p.P}/releases/${r._id}`, { name: 'n'.repeat(255) })).status).toBe(200);
    expect((await p.api.patch(`${p.P}/releases/0123456789abcdef01234567`, { name: 'x' })).status).toBe(404);
    expect((await p.api.get(`${p.P}/releases/0123456789abcdef01234567`)).body.error.code).toBe('NOT_FOUND');
    const viewer = await p.writer('viewer');
    expect((await viewer.patch(`${p.P}/releases/${r._id}`, { name: 'x' })).status).toBe(403);
    expect((await viewer.post(`${p.P}/releases`, { name: 'x' })).status).toBe(403);
    expect((await viewer.get(`${p.P}/releases/${r._id}`)).status).toBe(200);
    const key = await admin.apiKey(p.t.projectId);
    expect((await testApi(key.token).post(`${p.P}/releases`, { name: 'x' })).status).toBe(403);
  });
});

describe('releases: list', () => {
  it('lists newest first, filters by search and isCompleted, pages', async () => {
    const p = await newProject('owner');
    const a = await makeRelease(p, { name: 'Alpha 1.0' });
    const b = await makeRelease(p, { name: 'Beta 2.0' });
    const c = await makeRelease(p, { name: 'alpha 3.0' });
    await p.api.patch(`${p.P}/releases/${b._id}`, { isCompleted: true });
    const all = await p.api.get(`${p.P}/releases`);
    expect(all.body.data.map((r: any) => r._id)).toEqual([c._id, b._id, a._id]);
    expect(all.body.pagination).toEqual({ page: 1, limit: 10, total: 3, hasNext: false, hasPrev: false, hasMore: false });
    for (const r of all.body.data) expect(Object.keys(r).sort()).toEqual(RELEASE_KEYS);
    expect((await p.api.get(`${p.P}/releases?search=ALPHA`)).body.data.map((r: any) => r._id)).toEqual([c._id, a._id]);
    expect((await p.api.get(`${p.P}/releases?isCompleted=true`)).body.data.map((r: any) => r._id)).toEqual([b._id]);
    expect((await p.api.get(`${p.P}/releases?isCompleted=false`)).body.data.map((r: any) => r._id)).toEqual([c._id, a._id]);
    expectValidation(await p.api.get(`${p.P}/releases?isCompleted=maybe`), 'query.isCompleted');
    expect((await p.api.get(`${p.P}/releases?limit=3`)).body.error.code).toBe('INVALID_LIMIT');
    const other = await newProject('owner');
    expect((await other.api.get(`${other.P}/releases`)).body.data).toEqual([]);
    expect((await other.api.get(`${other.P}/releases/${a._id}`)).status).toBe(404);
  });
});
