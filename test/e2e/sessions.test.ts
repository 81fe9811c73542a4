/**
 * Exploratory sessions over HTTP: spec §4.4 create/update bodies, `status: closed` closes the session and
 * applies the other fields of the same request (spec §3), assignees by user id or e-mail of an organization
 * member, estimate ≥ 0, sanitized mission, reads with the write field names, list filter, roles.
 */
import { testApi } from '@assay/testkit';
import { admin, expectValidation, ID, ISO, newProject, type Project } from './support/manual-testing';

const SESSION_KEYS = [
  '_id',
  'assignee',
  'closedAt',
  'config',
  'createdAt',
  'environment',
  'estimate',
  'linkedIssues',
  'metadata',
  'mission',
  'name',
  'releaseId',
  'sessionType',
  'state',
  'status',
  'tags',
  'updatedAt',
];

async function makeSession(p: Project, body: Record<string, unknown>, api = p.api): Promise<any> {
  const res = await api.post(`${p.P}/sessions`, body);
  if (res.status !== 201) throw new Error(`session create failed: ${res.status} ${res.text}`);
  return res.body.data;
}

describe('sessions: create', () => {
  let p: Project;
  let release: any;
  beforeAll(async () => {
    p = await newProject('owner');
    release = (await p.api.post(`${p.P}/releases`, { name: 'R1' })).body.data;
  });

  it('answers 201 with every field; the assignee given by e-mail resolves to the member', async () => {
    const tester = await p.writer('member');
    const res = await p.api.post(`${p.P}/sessions`, {
      name: 'Explore checkout',
      mission: '<h2>Charter</h2><p onmouseover="steal()">Find <em>payment</em> bugs</p><script>document.cookie</script><style>p{}</style>',
      sessionType: 'charter',
      config: 'Chrome 120',
      environment: 'staging',
      releaseId: release._id,
      assigneeUserId: tester.user.email.toUpperCase(),
      state: 'in progress',
      estimate: 90,
      tags: ['checkout', ' payments ', 'checkout'],
      linkedIssues: [{ provider: 'github', displayId: '#12', url: 'https://github.example.test/i/12', title: 'Bug' }],
    });
    expect(res.status).toBe(201);
    const s = res.body.data;
    expect(Object.keys(s).sort()).toEqual(SESSION_KEYS);
    expect(s).toEqual({
      _id: expect.stringMatching(ID),
      name: 'Explore checkout',
      mission: '<h2>Charter</h2><p>Find <em>payment</em> bugs</p>',
      sessionType: 'charter',
      config: 'Chrome 120',
      environment: 'staging',
      releaseId: release._id,
      assignee: { _id: tester.user.userId, name: tester.user.name, email: tester.user.email },
      state: 'in progress',
      estimate: 90,
      tags: ['checkout', 'payments'],
      linkedIssues: [{ provider: 'github', displayId: '#12', url: 'https://github.example.test/i/12', title: 'Bug' }],
      status: 'open',
      closedAt: null,
      metadata: { lastModifiedBy: { name: p.t.name, email: p.t.email } },
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
  });

  it('has defaults for a session with only a name and takes the assignee by user id', async () => {
    const s = await makeSession(p, { name: 'Bare' });
    expect(s).toMatchObject({
      mission: '',
      sessionType: null,
      config: null,
      environment: null,
      releaseId: null,
      assignee: null,
      state: null,
      estimate: null,
      tags: [],
      linkedIssues: [],
      status: 'open',
    });
    const byId = await makeSession(p, { name: 'By id', assigneeUserId: p.t.userId });
    expect(byId.assignee).toEqual({ _id: p.t.userId, name: p.t.name, email: p.t.email });
  });

  it.each<[string, Record<string, unknown>, number, string?]>([
    ['a name of 255 characters', { name: 'n'.repeat(255) }, 201],
    ['a name of 256 characters', { name: 'n'.repeat(256) }, 400, 'body.name'],
    ['no name', { mission: 'x' }, 400, 'body.name'],
    ['estimate 0', { name: 'x', estimate: 0 }, 201],
    ['estimate -1', { name: 'x', estimate: -1 }, 400, 'body.estimate'],
    ['estimate 1.5', { name: 'x', estimate: 1.5 }, 400, 'body.estimate'],
    ['an assignee who is not an organization member', { name: 'x', assigneeUserId: 'stranger@example.test' }, 400, 'body.assigneeUserId'],
    ['an assignee id that names nobody', { name: 'x', assigneeUserId: '0123456789abcdef01234567' }, 400, 'body.assigneeUserId'],
    ['an unknown release', { name: 'x', releaseId: '0123456789abcdef01234567' }, 400, 'body.releaseId'],
    ['status on create', { name: 'x', status: 'closed' }, 400, 'body.status'],
    ['tags as a string', { name: 'x', tags: 'a,b' }, 400, 'body.tags'],
    [
      'a linked issue with an unknown field',
      { name: 'x', linkedIssues: [{ url: 'https://x.test', key: 'y' }] },
      400,
      'body.linkedIssues.0.key',
    ],
    ['an unknown property', { name: 'x', charter: 'y' }, 400, 'body.charter'],
  ])('%s → %i', async (...[, body, status, path]) => {
    const w = await p.writer();
    const res = await w.post(`${p.P}/sessions`, body);
    expect(res.status).toBe(status);
    if (status === 400) expectValidation(res, path);
  });

  it('refuses a member of another organization as assignee, and a release of another project', async () => {
    const outsider = await admin.tenant('owner');
    expectValidation(await p.api.post(`${p.P}/sessions`, { name: 'x', assigneeUserId: outsider.userId }), 'body.assigneeUserId');
    const foreignRelease = (await testApi(outsider.token).post(`/${outsider.projectId}/releases`, { name: 'F' })).body.data;
    expectValidation(await p.api.post(`${p.P}/sessions`, { name: 'x', releaseId: foreignRelease._id }), 'body.releaseId');
  });
});

describe('sessions: update and close', () => {
  let p: Project;
  beforeAll(async () => {
    p = await newProject('owner');
  });

  it('changes only the fields sent; null unassigns, detaches and clears the estimate', async () => {
    const release = (await p.api.post(`${p.P}/releases`, { name: 'R' })).body.data;
    const s = await makeSession(p, { name: 'S', estimate: 30, tags: ['a'], releaseId: release._id, assigneeUserId: p.t.email });
    const w = await p.writer();
    const u = (await w.patch(`${p.P}/sessions/${s._id}`, { estimate: 45, mission: '<p>m</p>' })).body.data;
    expect(u).toMatchObject({ name: 'S', estimate: 45, mission: '<p>m</p>', tags: ['a'], releaseId: release._id, status: 'open' });
    expect(u.assignee._id).toBe(p.t.userId);
    expect(u.metadata.lastModifiedBy).toEqual({ name: w.user.name, email: w.user.email });
    const cleared = (await w.patch(`${p.P}/sessions/${s._id}`, { assigneeUserId: null, releaseId: null })).body.data;
    expect(cleared).toMatchObject({ assignee: null, releaseId: null, estimate: 45 });
    const noEstimate = await w.patch(`${p.P}/sessions/${s._id}`, { estimate: null });
    expect(noEstimate.status).toBe(200);
    expect(noEstimate.body.data).toMatchObject({ estimate: null, mission: '<p>m</p>' });
    expect((await w.get(`${p.P}/sessions/${s._id}`)).body.data.estimate).toBeNull();
    const reassigned = (await w.patch(`${p.P}/sessions/${s._id}`, { assigneeUserId: w.user.userId })).body.data;
    expect(reassigned.assignee).toEqual({ _id: w.user.userId, name: w.user.name, email: w.user.email });
  });

  it('closes with status closed and applies the other fields sent in the same request', async () => {
    const s = await makeSession(p, { name: 'To close', state: 'in progress' });
    const res = await p.api.patch(`${p.P}/sessions/${s._id}`, {
      status: 'closed',
      name: 'Closed session',
      state: 'done',
      estimate: 0,
      tags: ['wrap-up'],
      mission: '<p>done<script>x</script></p>',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'closed',
      closedAt: expect.stringMatching(ISO),
      name: 'Closed session',
      state: 'done',
      estimate: 0,
      tags: ['wrap-up'],
      mission: '<p>done</p>',
    });
    const read = (await p.api.get(`${p.P}/sessions/${s._id}`)).body.data;
    expect(read).toEqual(res.body.data);
    // closing again keeps the first closing time
    const again = (await p.api.patch(`${p.P}/sessions/${s._id}`, { status: 'closed' })).body.data;
    expect(again.closedAt).toBe(read.closedAt);
  });

  it.each<[string, unknown, string?]>([
    ['an empty body', {}, 'body'],
    ['status open (closing is the only status change)', { status: 'open' }, 'body.status'],
    ['a name of 256 characters', { name: 'n'.repeat(256) }, 'body.name'],
    ['estimate -5', { estimate: -5 }, 'body.estimate'],
    ['an assignee outside the organization', { assigneeUserId: 'nobody@example.test' }, 'body.assigneeUserId'],
    ['an unknown release', { releaseId: '0123456789abcdef01234567' }, 'body.releaseId'],
    ['an unknown property', { closed: true }, 'body.closed'],
  ])('refuses %s (400, nothing written)', async (...[, body, path]) => {
    const s = await makeSession(p, { name: 'Keep', estimate: 10 });
    expectValidation(await p.api.patch(`${p.P}/sessions/${s._id}`, body), path);
    expect((await p.api.get(`${p.P}/sessions/${s._id}`)).body.data).toEqual(s);
  });

  it('refuses a close whose other fields are invalid: the session stays open', async () => {
    const s = await makeSession(p, { name: 'Stay open' });
    expectValidation(
      await p.api.patch(`${p.P}/sessions/${s._id}`, { status: 'closed', assigneeUserId: 'nobody@example.test' }),
      'body.assigneeUserId',
    );
    expect((await p.api.get(`${p.P}/sessions/${s._id}`)).body.data.status).toBe('open');
  });

  it('accepts a 255-character name on update; 404 for unknown sessions; viewers read but cannot write', async () => {
    const s = await makeSession(p, { name: 'N' });
    expect((await p.api.patch(`${p.P}/sessions/${s._id}`, { name: 'n'.repeat(255) })).status).toBe(200);
    expect((await p.api.patch(`${p.P}/sessions/0123456789abcdef01234567`, { name: 'x' })).status).toBe(404);
    expect((await p.api.get(`${p.P}/sessions/0123456789abcdef01234567`)).status).toBe(404);
    const viewer = await p.writer('viewer');
    expect((await viewer.get(`${p.P}/sessions/${s._id}`)).status).toBe(200);
    const refused = await viewer.patch(`${p.P}/sessions/${s._id}`, { status: 'closed' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect((await viewer.post(`${p.P}/sessions`, { name: 'x' })).status).toBe(403);
    expect((await p.api.get(`${p.P}/sessions/${s._id}`)).body.data.status).toBe('open');
  });
});

describe('sessions: list', () => {
  it('lists newest first and filters by status', async () => {
    const p = await newProject('owner');
    const a = await makeSession(p, { name: 'A' });
    const b = await makeSession(p, { name: 'B' });
    await p.api.patch(`${p.P}/sessions/${a._id}`, { status: 'closed' });
    const all = await p.api.get(`${p.P}/sessions`);
    expect(all.body.data.map((s: any) => s._id)).toEqual([b._id, a._id]);
    expect(all.body.pagination).toMatchObject({ total: 2, page: 1, limit: 10 });
    for (const s of all.body.data) expect(Object.keys(s).sort()).toEqual(SESSION_KEYS);
    expect((await p.api.get(`${p.P}/sessions?status=open`)).body.data.map((s: any) => s._id)).toEqual([b._id]);
    expect((await p.api.get(`${p.P}/sessions?status=closed`)).body.data.map((s: any) => s._id)).toEqual([a._id]);
    expectValidation(await p.api.get(`${p.P}/sessions?status=paused`), 'query.status');
  });
});
