/**
 * Manual runs and their test cases over HTTP: selection modes (`all` = every active case; `selected` =
 * testCaseIds and suiteIds with their sub-suites, includeUnsorted), rollup counts per verdict, update,
 * close, 409 CONFLICT for any edit of a closed run but `releaseId`; run test cases: list with filters,
 * quick verdict vs detailed result (mutually exclusive), `result`/`status` alias, untested default.
 */
import pg from 'pg';
import { testApi, testSystem } from '@assay/testkit';
import { admin, expectValidation, ID, ISO, makeCase, makeSuite, newProject, type Project } from './support/manual-testing';

const RUN_KEYS = [
  '_id',
  'closedAt',
  'createdAt',
  'environment',
  'forecast',
  'includeUnsorted',
  'linkedIssues',
  'links',
  'metadata',
  'name',
  'note',
  'releaseId',
  'selectionMode',
  'state',
  'stats',
  'status',
  'tags',
  'updatedAt',
];
const RUN_CASE_KEYS = ['_id', 'assignee', 'comment', 'elapsed', 'linkedIssues', 'result', 'runId', 'stepResults', 'testCase', 'updatedAt'];
const ZERO = { total: 0, untested: 0, passed: 0, failed: 0, blocked: 0, skipped: 0, retest: 0 };

/** Creates a run with a fresh member token (manual run creation has its own per-token limit, spec §8). */
async function makeRun(p: Project, body: Record<string, unknown>): Promise<any> {
  const w = await p.writer();
  const res = await w.post(`${p.P}/manual-runs`, body);
  if (res.status !== 201) throw new Error(`run create failed: ${res.status} ${res.text}`);
  return res.body.data;
}

async function runCaseIds(p: Project, runId: string, query = 'limit=100'): Promise<string[]> {
  const res = await p.api.get(`${p.P}/manual-runs/${runId}/test-cases?${query}`);
  expect(res.status).toBe(200);
  return res.body.data.map((c: any) => c.testCase.caseId);
}

/**
 * A project with suites A (with sub-suite A1 and its sub-suite A1x) and B, and cases:
 * TC-1 in A, TC-2 in A1, TC-3 in A1x, TC-4 in B, TC-5 draft in A, TC-6 deprecated in B.
 */
async function fixture(): Promise<{ p: Project; a: any; a1: any; b: any; cases: any[] }> {
  const p = await newProject('owner');
  const a = await makeSuite(p, { name: 'A' });
  const a1 = await makeSuite(p, { name: 'A1', parentSuiteId: a._id });
  const a1x = await makeSuite(p, { name: 'A1x', parentSuiteId: a1._id });
  const b = await makeSuite(p, { name: 'B' });
  const cases = [
    await makeCase(p, { title: 'one', suiteId: a._id, steps: [{ action: 'a' }, { action: 'b' }] }),
    await makeCase(p, { title: 'two', suiteId: a1._id }),
    await makeCase(p, { title: 'three', suiteId: a1x._id }),
    await makeCase(p, { title: 'four', suiteId: b._id }),
    await makeCase(p, { title: 'five (draft)', suiteId: a._id, status: 'draft' }),
    await makeCase(p, { title: 'six (deprecated)', suiteId: b._id, status: 'Deprecated' }),
  ];
  return { p, a, a1, b, cases };
}

describe('manual runs: create and selection', () => {
  let f: Awaited<ReturnType<typeof fixture>>;
  beforeAll(async () => {
    f = await fixture();
  });

  it('selectionMode all (the default) takes every case of the project, drafts and deprecated included (spec §4.4), and answers the full shape with rollup counts', async () => {
    const release = (await f.p.api.post(`${f.p.P}/releases`, { name: 'R' })).body.data;
    const w = await f.p.writer();
    const res = await w.post(`${f.p.P}/manual-runs`, {
      name: 'Regression 2.4',
      note: '<p>Run <b>all</b><script>alert(1)</script></p>',
      environment: 'staging',
      releaseId: release._id,
      state: 'planned',
      forecast: 2.5,
      tags: ['regression'],
      linkedIssues: [{ displayId: 'QA-1' }],
      links: [{ title: 'Plan', url: 'https://wiki.example.test/plan' }],
    });
    expect(res.status).toBe(201);
    const r = res.body.data;
    expect(Object.keys(r).sort()).toEqual(RUN_KEYS);
    expect(r).toEqual({
      _id: expect.stringMatching(ID),
      name: 'Regression 2.4',
      note: '<p>Run <b>all</b></p>',
      environment: 'staging',
      releaseId: release._id,
      state: 'planned',
      selectionMode: 'all',
      includeUnsorted: false,
      forecast: 2.5,
      tags: ['regression'],
      linkedIssues: [{ displayId: 'QA-1' }],
      links: [{ title: 'Plan', url: 'https://wiki.example.test/plan' }],
      status: 'open',
      closedAt: null,
      stats: { ...ZERO, total: 6, untested: 6 },
      metadata: { lastModifiedBy: { name: w.user.name, email: w.user.email } },
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(await runCaseIds(f.p, r._id)).toEqual(['TC-1', 'TC-2', 'TC-3', 'TC-4', 'TC-5', 'TC-6']);
  });

  it('selected with suiteIds takes the active cases of those suites and all their sub-suites', async () => {
    const r = await makeRun(f.p, { name: 'A tree', selectionMode: 'selected', suiteIds: [f.a._id] });
    expect(await runCaseIds(f.p, r._id)).toEqual(['TC-1', 'TC-2', 'TC-3']);
    const r1 = await makeRun(f.p, { name: 'A1 tree', selectionMode: 'selected', suiteIds: [f.a1._id] });
    expect(await runCaseIds(f.p, r1._id)).toEqual(['TC-2', 'TC-3']);
    expect(r1.stats).toEqual({ ...ZERO, total: 2, untested: 2 });
  });

  it('selected with testCaseIds takes exactly those cases (by _id or TC-n), together with suites, without duplicates', async () => {
    const r = await makeRun(f.p, {
      name: 'Picked',
      selectionMode: 'selected',
      testCaseIds: [f.cases[3]._id, 'TC-5', 'tc-1'],
      suiteIds: [f.a1._id],
    });
    expect(await runCaseIds(f.p, r._id)).toEqual(['TC-1', 'TC-2', 'TC-3', 'TC-4', 'TC-5']);
    expect(r.selectionMode).toBe('selected');
  });

  it('includeUnsorted adds the active cases that are in no suite', async () => {
    // The public API never creates a case without a suite; such cases exist when imported. Make one in the
    // service's own table to see the selection pick it up.
    const unsorted = await makeCase(f.p, { title: 'unsorted', suiteId: f.b._id });
    const db = new pg.Client({ connectionString: testSystem().infra.DATABASE_URL });
    await db.connect();
    try {
      await db.query(`UPDATE manual_testing.cases SET suite_id = NULL WHERE id = $1`, [unsorted._id]);
    } finally {
      await db.end();
    }
    expect((await f.p.api.get(`${f.p.P}/manual-test-cases/${unsorted._id}`)).body.data.metadata.suite).toBeNull();
    const only = await makeRun(f.p, { name: 'Unsorted', selectionMode: 'selected', includeUnsorted: true });
    expect(await runCaseIds(f.p, only._id)).toEqual([unsorted.caseId]);
    expect(only.includeUnsorted).toBe(true);
    const withSuite = await makeRun(f.p, { name: 'B+unsorted', selectionMode: 'selected', suiteIds: [f.b._id], includeUnsorted: true });
    expect(await runCaseIds(f.p, withSuite._id)).toEqual(['TC-4', unsorted.caseId]);
    const without = await makeRun(f.p, { name: 'B only', selectionMode: 'selected', suiteIds: [f.b._id] });
    expect(await runCaseIds(f.p, without._id)).toEqual(['TC-4']);
    const run = await f.p.api.get(`${f.p.P}/manual-runs/${only._id}/test-cases`);
    expect(run.body.data[0].testCase.suite).toBeNull();
  });

  it('is never half-written: an unknown case or suite refuses the whole run', async () => {
    const q = await fixture();
    const w = await q.p.writer();
    const res = await w.post(`${q.p.P}/manual-runs`, {
      name: 'x',
      selectionMode: 'selected',
      testCaseIds: ['TC-1', 'TC-99', '0123456789abcdef01234567'],
      suiteIds: [q.a._id, 'fedcba9876543210fedcba98'],
    });
    expectValidation(res);
    expect(res.body.error.details.map((d: any) => d.path)).toEqual(['body.testCaseIds.1', 'body.testCaseIds.2', 'body.suiteIds.1']);
    const other = await newProject('owner');
    const foreignSuite = await makeSuite(other, { name: 'F' });
    expectValidation(
      await w.post(`${q.p.P}/manual-runs`, { name: 'x', selectionMode: 'selected', suiteIds: [foreignSuite._id] }),
      'body.suiteIds.0',
    );
    expect((await q.p.api.get(`${q.p.P}/manual-runs`)).body.pagination.total).toBe(0);
  });

  it.each<[string, Record<string, unknown>, number, string?]>([
    ['a name of 255 characters', { name: 'n'.repeat(255) }, 201],
    ['a name of 256 characters', { name: 'n'.repeat(256) }, 400, 'body.name'],
    ['no name', { note: 'x' }, 400, 'body.name'],
    ['forecast 0', { name: 'x', forecast: 0 }, 201],
    ['forecast -1', { name: 'x', forecast: -1 }, 400, 'body.forecast'],
    ['forecast as a string', { name: 'x', forecast: '3' }, 400, 'body.forecast'],
    ['selectionMode all explicitly', { name: 'x', selectionMode: 'all' }, 201],
    ['selectionMode some', { name: 'x', selectionMode: 'some' }, 400, 'body.selectionMode'],
    ['selected with nothing selected', { name: 'x', selectionMode: 'selected' }, 400, 'body.selectionMode'],
    ['testCaseIds with selectionMode all', { name: 'x', testCaseIds: ['TC-1'] }, 400, 'body.testCaseIds'],
    ['suiteIds with selectionMode all', { name: 'x', selectionMode: 'all', suiteIds: ['0123456789abcdef01234567'] }, 400, 'body.suiteIds'],
    ['a link with title and url', { name: 'x', links: [{ title: 'CI', url: 'https://ci.example.test/1' }] }, 201],
    ['a link without title', { name: 'x', links: [{ url: 'https://ci.example.test/1' }] }, 400, 'body.links.0.title'],
    ['a link whose url is not a URL', { name: 'x', links: [{ title: 'CI', url: 'not a url' }] }, 400, 'body.links.0.url'],
    ['a javascript: link', { name: 'x', links: [{ title: 'CI', url: 'javascript:alert(1)' }] }, 400, 'body.links.0.url'],
    ['an unknown release', { name: 'x', releaseId: '0123456789abcdef01234567' }, 400, 'body.releaseId'],
    ['status on create', { name: 'x', status: 'closed' }, 400, 'body.status'],
    ['an unknown property', { name: 'x', cases: [] }, 400, 'body.cases'],
  ])('%s → %i', async (...[, body, status, path]) => {
    const w = await f.p.writer();
    const res = await w.post(`${f.p.P}/manual-runs`, body);
    expect(res.status).toBe(status);
    if (status === 400) expectValidation(res, path);
  });
});

describe('manual runs: update, close, conflict', () => {
  it('updates the fields sent; switching to all brings in every case the run lacks and keeps verdicts', async () => {
    const f = await fixture();
    const r = await makeRun(f.p, { name: 'Sel', selectionMode: 'selected', testCaseIds: ['TC-1'], tags: ['x'] });
    await f.p.api.patch(`${f.p.P}/manual-runs/${r._id}/test-cases/TC-1`, { result: 'failed' });
    const w = await f.p.writer();
    const u = (await w.patch(`${f.p.P}/manual-runs/${r._id}`, { state: 'in progress', forecast: 4, note: '<u>n</u>' })).body.data;
    expect(u).toMatchObject({ name: 'Sel', state: 'in progress', forecast: 4, note: '<u>n</u>', tags: ['x'], selectionMode: 'selected' });
    expect(u.metadata.lastModifiedBy).toEqual({ name: w.user.name, email: w.user.email });
    const all = (await w.patch(`${f.p.P}/manual-runs/${r._id}`, { selectionMode: 'all' })).body.data;
    expect(all.selectionMode).toBe('all');
    expect(all.stats).toEqual({ ...ZERO, total: 6, untested: 5, failed: 1 });
    expect(await runCaseIds(f.p, r._id)).toEqual(['TC-1', 'TC-2', 'TC-3', 'TC-4', 'TC-5', 'TC-6']);
    expectValidation(await w.patch(`${f.p.P}/manual-runs/${r._id}`, {}), 'body');
    expectValidation(await w.patch(`${f.p.P}/manual-runs/${r._id}`, { name: 'n'.repeat(256) }), 'body.name');
    expect((await w.patch(`${f.p.P}/manual-runs/${r._id}`, { name: 'n'.repeat(255) })).status).toBe(200);
    expectValidation(await w.patch(`${f.p.P}/manual-runs/${r._id}`, { forecast: -0.5 }), 'body.forecast');
    // null clears the forecast (alone, it is the one field sent); the other fields stay.
    const cleared = await w.patch(`${f.p.P}/manual-runs/${r._id}`, { forecast: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ forecast: null, state: 'in progress', note: '<u>n</u>' });
    expect((await w.get(`${f.p.P}/manual-runs/${r._id}`)).body.data.forecast).toBeNull();
    expectValidation(await w.patch(`${f.p.P}/manual-runs/${r._id}`, { status: 'open' }), 'body.status');
    expectValidation(await w.patch(`${f.p.P}/manual-runs/${r._id}`, { testCaseIds: ['TC-2'] }), 'body.testCaseIds');
  });

  it('closes with status closed; then refuses every edit but releaseId with 409 CONFLICT', async () => {
    const f = await fixture();
    const r = await makeRun(f.p, { name: 'To close' });
    await f.p.api.patch(`${f.p.P}/manual-runs/${r._id}/test-cases/TC-2`, { result: 'passed' });
    const closed = await f.p.api.patch(`${f.p.P}/manual-runs/${r._id}`, { status: 'closed', name: 'Closed run' });
    expect(closed.status).toBe(200);
    expect(closed.body.data).toMatchObject({ status: 'closed', closedAt: expect.stringMatching(ISO), name: 'Closed run' });
    expect(closed.body.data.stats).toEqual({ ...ZERO, total: 6, untested: 5, passed: 1 });
    const url = `${f.p.P}/manual-runs/${r._id}`;
    for (const body of [
      { name: 'again' },
      { note: 'x' },
      { environment: 'x' },
      { state: 'x' },
      { selectionMode: 'all' },
      { forecast: 1 },
      { forecast: null },
      { tags: [] },
      { linkedIssues: [] },
      { links: [] },
      { status: 'closed' },
    ]) {
      const res = await f.p.api.patch(url, body);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
    }
    const release = (await f.p.api.post(`${f.p.P}/releases`, { name: 'Late release' })).body.data;
    const mixed = await f.p.api.patch(url, { releaseId: release._id, name: 'sneaky' });
    expect(mixed.status).toBe(409);
    const linked = await f.p.api.patch(url, { releaseId: release._id });
    expect(linked.status).toBe(200);
    expect(linked.body.data).toMatchObject({ releaseId: release._id, status: 'closed', name: 'Closed run' });
    expect((await f.p.api.patch(url, { releaseId: null })).body.data.releaseId).toBeNull();
    expectValidation(await f.p.api.patch(url, { releaseId: '0123456789abcdef01234567' }), 'body.releaseId');
    // verdicts of a closed run cannot change either
    const verdict = await f.p.api.patch(`${url}/test-cases/TC-1`, { result: 'failed' });
    expect(verdict.status).toBe(409);
    expect(verdict.body.error.code).toBe('CONFLICT');
    expect((await f.p.api.get(url)).body.data.stats).toEqual({ ...ZERO, total: 6, untested: 5, passed: 1 });
  });

  it('answers 404 for unknown runs and runs of other projects; viewers read but cannot write', async () => {
    const f = await fixture();
    const r = await makeRun(f.p, { name: 'R' });
    const other = await newProject('owner');
    expect((await other.api.get(`${other.P}/manual-runs/${r._id}`)).status).toBe(404);
    expect((await other.api.patch(`${other.P}/manual-runs/${r._id}`, { name: 'x' })).status).toBe(404);
    expect((await other.api.get(`${other.P}/manual-runs/${r._id}/test-cases`)).status).toBe(404);
    expect((await f.p.api.get(`${f.p.P}/manual-runs/0123456789abcdef01234567`)).body.error.code).toBe('NOT_FOUND');
    const viewer = await f.p.writer('viewer');
    expect((await viewer.get(`${f.p.P}/manual-runs/${r._id}`)).status).toBe(200);
    expect((await viewer.get(`${f.p.P}/manual-runs/${r._id}/test-cases`)).status).toBe(200);
    expect((await viewer.post(`${f.p.P}/manual-runs`, { name: 'x' })).status).toBe(403);
    expect((await viewer.patch(`${f.p.P}/manual-runs/${r._id}`, { status: 'closed' })).status).toBe(403);
    expect((await viewer.patch(`${f.p.P}/manual-runs/${r._id}/test-cases/TC-1`, { result: 'passed' })).status).toBe(403);
    const key = await admin.apiKey(f.p.t.projectId);
    expect((await testApi(key.token).post(`${f.p.P}/manual-runs`, { name: 'x' })).status).toBe(403);
    expect((await f.p.api.get(`${f.p.P}/manual-runs/${r._id}`)).body.data).toMatchObject({ status: 'open', stats: { passed: 0 } });
  });

  it('lists runs newest first with their rollup counts and filters by status', async () => {
    const f = await fixture();
    const a = await makeRun(f.p, { name: 'A' });
    const b = await makeRun(f.p, { name: 'B', selectionMode: 'selected', testCaseIds: ['TC-1'] });
    await f.p.api.patch(`${f.p.P}/manual-runs/${a._id}/test-cases/TC-1`, { result: 'blocked' });
    await f.p.api.patch(`${f.p.P}/manual-runs/${a._id}`, { status: 'closed' });
    const all = await f.p.api.get(`${f.p.P}/manual-runs`);
    expect(all.body.data.map((r: any) => r._id)).toEqual([b._id, a._id]);
    for (const r of all.body.data) expect(Object.keys(r).sort()).toEqual(RUN_KEYS);
    expect(all.body.data[1].stats).toEqual({ ...ZERO, total: 6, untested: 5, blocked: 1 });
    expect(all.body.data[0].stats).toEqual({ ...ZERO, total: 1, untested: 1 });
    expect((await f.p.api.get(`${f.p.P}/manual-runs?status=open`)).body.data.map((r: any) => r._id)).toEqual([b._id]);
    expect((await f.p.api.get(`${f.p.P}/manual-runs?status=closed`)).body.data.map((r: any) => r._id)).toEqual([a._id]);
    expectValidation(await f.p.api.get(`${f.p.P}/manual-runs?status=done`), 'query.status');
  });
});

describe('run test cases', () => {
  let f: Awaited<ReturnType<typeof fixture>>;
  let run: any;
  let url: string;
  beforeAll(async () => {
    f = await fixture();
    run = await makeRun(f.p, { name: 'Verdicts' });
    url = `${f.p.P}/manual-runs/${run._id}/test-cases`;
  });

  it('lists the cases of the run, untested by default, in the exact shape', async () => {
    const res = await f.p.api.get(url);
    expect(res.status).toBe(200);
    expect(res.body.pagination).toMatchObject({ total: 6, page: 1, limit: 10 });
    const first = res.body.data[0];
    expect(Object.keys(first).sort()).toEqual(RUN_CASE_KEYS);
    expect(first).toEqual({
      _id: expect.stringMatching(ID),
      runId: run._id,
      testCase: { _id: f.cases[0]._id, caseId: 'TC-1', title: 'one', suite: { _id: f.a._id, name: 'A' } },
      result: 'untested',
      assignee: null,
      elapsed: null,
      comment: '',
      linkedIssues: [],
      stepResults: [],
      updatedAt: expect.stringMatching(ISO),
    });
    expect(res.body.data.every((c: any) => c.result === 'untested')).toBe(true);
  });

  it('records a quick verdict: result in display or canonical form, elapsed, assignee by e-mail', async () => {
    const w = await f.p.writer();
    const res = await w.patch(`${url}/TC-1`, { result: 'Passed', elapsed: 12.5, assigneeUserId: w.user.email });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      result: 'passed',
      elapsed: 12.5,
      assignee: { _id: w.user.userId, name: w.user.name, email: w.user.email },
      testCase: { caseId: 'TC-1' },
    });
    // `status` is an alias of result; both equal is fine
    expect((await w.patch(`${url}/TC-2`, { status: 'retest' })).body.data.result).toBe('retest');
    expect((await w.patch(`${url}/TC-2`, { status: 'Blocked', result: 'blocked' })).body.data.result).toBe('blocked');
    expect((await w.patch(`${url}/TC-3`, { result: 'skipped', elapsed: 0 })).body.data).toMatchObject({ result: 'skipped', elapsed: 0 });
    expect((await w.patch(`${url}/TC-3`, { result: 'Untested' })).body.data.result).toBe('untested');
    // null unassigns
    expect((await w.patch(`${url}/TC-1`, { assigneeUserId: null })).body.data).toMatchObject({ assignee: null, result: 'passed' });
    const stats = (await f.p.api.get(`${f.p.P}/manual-runs/${run._id}`)).body.data.stats;
    expect(stats).toEqual({ ...ZERO, total: 6, untested: 4, passed: 1, blocked: 1 });
  });

  it('records a detailed result: sanitized comment, linked issues, step results (order, status, comment)', async () => {
    const res = await f.p.api.patch(`${url}/${f.cases[3]._id}`, {
      comment: '<p>Broke on <b>step 2</b><script>steal()</script></p>',
      linkedIssues: [{ provider: 'jira', displayId: 'BUG-7', url: 'https://jira.example.test/BUG-7' }],
      stepResults: [
        { order: 2, status: 'Failed', comment: '<i>500</i><img src=x onerror=alert(1)>' },
        { order: 1, status: 'passed' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      comment: '<p>Broke on <b>step 2</b></p>',
      linkedIssues: [{ provider: 'jira', displayId: 'BUG-7', url: 'https://jira.example.test/BUG-7' }],
      stepResults: [
        { order: 1, status: 'passed', comment: '' },
        { order: 2, status: 'failed', comment: '<i>500</i><img src="x" />' },
      ],
      result: 'untested',
      testCase: { caseId: 'TC-4' },
    });
    expect(JSON.stringify(res.body.data)).not.toMatch(/script|onerror/);
  });

  it('finds a case by run-case id, case _id or TC-n; 404 for a case not in the run', async () => {
    const list = (await f.p.api.get(url)).body.data;
    const rc = list[1];
    expect((await f.p.api.patch(`${url}/${rc._id}`, { elapsed: 1 })).body.data._id).toBe(rc._id);
    expect((await f.p.api.patch(`${url}/${rc.testCase._id}`, { elapsed: 2 })).body.data._id).toBe(rc._id);
    expect((await f.p.api.patch(`${url}/${rc.testCase.caseId}`, { elapsed: 3 })).body.data.elapsed).toBe(3);
    // a case created after the run is a case of the project but not of the run
    const later = await makeCase(f.p, { title: 'later', suiteId: f.a._id });
    const notInRun = await f.p.api.patch(`${url}/${later.caseId}`, { result: 'passed' });
    expect(notInRun.status).toBe(404);
    expect(notInRun.body.error.code).toBe('NOT_FOUND');
    expect((await f.p.api.patch(`${url}/TC-999`, { result: 'passed' })).status).toBe(404);
    expect((await f.p.api.patch(`${f.p.P}/manual-runs/0123456789abcdef01234567/test-cases/TC-1`, { result: 'passed' })).status).toBe(404);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a quick verdict mixed with a comment', { result: 'passed', comment: 'x' }, 'body'],
    ['an assignee mixed with step results', { assigneeUserId: null, stepResults: [] }, 'body'],
    ['elapsed mixed with linked issues', { elapsed: 1, linkedIssues: [] }, 'body'],
    ['an empty body', {}, 'body'],
    ['an unknown verdict', { result: 'done' }, 'body.result'],
    ['an unknown verdict in status', { status: 'ok' }, 'body.status'],
    ['result and status that differ', { result: 'passed', status: 'failed' }, 'body.status'],
    ['elapsed below 0', { elapsed: -1 }, 'body.elapsed'],
    ['elapsed as a string', { elapsed: '5' }, 'body.elapsed'],
    ['an assignee outside the organization', { assigneeUserId: 'nobody@example.test' }, 'body.assigneeUserId'],
    ['a step result without order', { stepResults: [{ status: 'passed' }] }, 'body.stepResults.0.order'],
    ['a step result with order 0', { stepResults: [{ order: 0, status: 'passed' }] }, 'body.stepResults.0.order'],
    ['a step result with an unknown status', { stepResults: [{ order: 1, status: 'meh' }] }, 'body.stepResults.0.status'],
    [
      'two step results for the same step',
      {
        stepResults: [
          { order: 1, status: 'passed' },
          { order: 1, status: 'failed' },
        ],
      },
      'body.stepResults.1.order',
    ],
    ['a step result with an unknown field', { stepResults: [{ order: 1, status: 'passed', note: 'x' }] }, 'body.stepResults.0.note'],
    ['an unknown property', { verdict: 'passed' }, 'body.verdict'],
  ])('refuses %s with 400 and writes nothing', async (_label, body, path) => {
    const before = (await f.p.api.get(`${url}?limit=100`)).body.data.find((c: any) => c.testCase.caseId === 'TC-2');
    expectValidation(await f.p.api.patch(`${url}/TC-2`, body), path);
    const after = (await f.p.api.get(`${url}?limit=100`)).body.data.find((c: any) => c.testCase.caseId === 'TC-2');
    expect(after).toEqual(before);
  });

  it('filters by result (any form) and by assignee (user id, e-mail, none)', async () => {
    const q = await fixture();
    const r = await makeRun(q.p, { name: 'Filters' });
    const u = `${q.p.P}/manual-runs/${r._id}/test-cases`;
    const m = await q.p.writer();
    await q.p.api.patch(`${u}/TC-1`, { result: 'failed', assigneeUserId: m.user.userId });
    await q.p.api.patch(`${u}/TC-2`, { result: 'failed' });
    await q.p.api.patch(`${u}/TC-3`, { assigneeUserId: q.p.t.email });
    expect(await runCaseIds(q.p, r._id, 'result=failed')).toEqual(['TC-1', 'TC-2']);
    expect(await runCaseIds(q.p, r._id, 'result=Failed')).toEqual(['TC-1', 'TC-2']);
    expect(await runCaseIds(q.p, r._id, 'result=untested')).toEqual(['TC-3', 'TC-4', 'TC-5', 'TC-6']);
    expect(await runCaseIds(q.p, r._id, `assignee=${m.user.userId}`)).toEqual(['TC-1']);
    expect(await runCaseIds(q.p, r._id, `assignee=${encodeURIComponent(q.p.t.email)}`)).toEqual(['TC-3']);
    expect(await runCaseIds(q.p, r._id, 'assignee=none')).toEqual(['TC-2', 'TC-4', 'TC-5', 'TC-6']);
    expect(await runCaseIds(q.p, r._id, `result=failed&assignee=none`)).toEqual(['TC-2']);
    expectValidation(await q.p.api.get(`${u}?result=great`), 'query.result');
    const paged = await q.p.api.get(`${u}?limit=10&page=2`);
    expect(paged.body.data).toEqual([]);
    expect(paged.body.pagination).toMatchObject({ total: 6, page: 2, hasPrev: true, hasNext: false });
  });
});
