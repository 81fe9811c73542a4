/**
 * The `manual-runs` route family over `app.inject` (runs and `/manual-runs/{runId}/test-cases`), with an
 * in-memory manual-testing service: selection modes, statuses and verdicts (display forms understood) become
 * the proto enums, null detaches or unassigns, the run and run-case JSON with the JSON spellings, the run
 * creation's own rate bucket, and what the gateway refuses before any call.
 */
import { conflict, notFound } from '@assay/errors';
import {
  RecordStatus,
  SelectionMode,
  Verdict,
  type UpdateManualRunRequest,
  type UpdateRunCaseRequest,
} from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { SHARED_GATEWAY_RATE_LIMITS } from '@assay/testkit';
import { AT, AT_JSON, expectRefusedBeforeCall, expectWritesForbidden, familyHarness } from './manual-testing';

const run = (over: Record<string, unknown> = {}) => ({
  id: 'r'.repeat(24),
  name: 'Run',
  selectionMode: SelectionMode.SELECTED,
  includeUnsorted: true,
  forecast: 1.5,
  links: [{ title: 'CI', url: 'https://ci.test/1' }],
  status: RecordStatus.OPEN,
  stats: { total: 3, untested: 1, passed: 1, failed: 1 },
  createdAt: AT,
  updatedAt: AT,
  ...over,
});
const runCase = (over: Record<string, unknown> = {}) => ({
  id: 'c'.repeat(24),
  runId: 'r'.repeat(24),
  testCase: { id: 't'.repeat(24), caseId: 'TC-3', title: 'Pay' },
  result: Verdict.RETEST,
  assignee: { id: 'u'.repeat(24), name: 'Alice', email: 'alice@example.test' },
  elapsed: 2.5,
  comment: '',
  stepResults: [{ order: 1, status: Verdict.BLOCKED, comment: 'x' }],
  updatedAt: AT,
  ...over,
});

/**
 * Run creation's own per-token bucket, small here: above what any other test's token creates, while the other
 * buckets stay out of reach.
 */
const RUN_CREATES = 8;
const RATE_LIMITS = Object.entries({ ...SHARED_GATEWAY_RATE_LIMITS, manualRunCreate: RUN_CREATES })
  .map(([k, v]) => `${k}=${v}`)
  .join(',');

const f = familyHarness(
  'manual-runs',
  {
    async createManualRun() {
      return { run: run() };
    },
    async updateManualRun(req) {
      if (req.name === 'late') throw conflict('The run is closed: only releaseId can change');
      return { run: run({ status: RecordStatus.CLOSED, closedAt: AT }) };
    },
    async getManualRun(req) {
      if (req.runId === 'missing') throw notFound('Manual run');
      return { run: run() };
    },
    async listManualRuns() {
      return { runs: [run()], page: { page: 1, limit: 10, total: 1n } };
    },
    async listRunCases() {
      return { runCases: [runCase()], page: { page: 1, limit: 10, total: 1n } };
    },
    async updateRunCase() {
      return { runCase: runCase({ assignee: undefined, result: Verdict.PASSED }) };
    },
  },
  { RATE_LIMITS },
);

const R = `${'r'.repeat(24)}`;

describe('manual-runs routes: runs', () => {
  it('create: the selection mode becomes the enum, lists default to empty; answers 201 with the run and its stats', async () => {
    const res = await f.h.request({
      as: 'member',
      method: 'POST',
      url: f.url,
      payload: { name: 'Run', selectionMode: 'selected', testCaseIds: ['TC-1'], includeUnsorted: true, forecast: 1.5 },
    });
    expect(res.statusCode).toBe(201);
    expect(f.h.calls[0]).toMatchObject({
      method: 'createManualRun',
      request: {
        projectId: f.h.projectId,
        name: 'Run',
        selectionMode: SelectionMode.SELECTED,
        testCaseIds: ['TC-1'],
        suiteIds: [],
        includeUnsorted: true,
        forecast: 1.5,
        tags: [],
        linkedIssues: [],
        links: [],
      },
      principal: f.h.caller('member').principal,
    });
    expect(res.json().data).toEqual({
      _id: R,
      name: 'Run',
      note: '',
      environment: null,
      releaseId: null,
      state: null,
      selectionMode: 'selected',
      includeUnsorted: true,
      forecast: 1.5,
      tags: [],
      linkedIssues: [],
      links: [{ title: 'CI', url: 'https://ci.test/1' }],
      status: 'open',
      closedAt: null,
      stats: { total: 3, untested: 1, passed: 1, failed: 1, blocked: 0, skipped: 0, retest: 0 },
      metadata: { lastModifiedBy: null },
      createdAt: AT_JSON,
      updatedAt: AT_JSON,
    });
    expect((f.h.calls[0]!.request as { releaseId?: string }).releaseId).toBeUndefined();
  });

  it('create counts against its own per-token bucket: over it 429, while other writes of the token go on', async () => {
    // The admin's token is used by this test only.
    for (let i = 0; i < RUN_CREATES; i++)
      expect((await f.h.request({ as: 'admin', method: 'POST', url: f.url, payload: { name: 'Run' } })).statusCode).toBe(201);
    const over = await f.h.request({ as: 'admin', method: 'POST', url: f.url, payload: { name: 'Run' } });
    expect(over.statusCode).toBe(429);
    expect(over.json().error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect((await f.h.request({ as: 'admin', method: 'PATCH', url: `${f.url}/${R}`, payload: { name: 'x' } })).statusCode).toBe(200);
    expect(f.h.calls.map((c) => c.method)).toEqual([...Array<string>(RUN_CREATES).fill('createManualRun'), 'updateManualRun']);
    expect((f.h.calls[0]!.request as { selectionMode?: SelectionMode }).selectionMode).toBeUndefined();
  });

  it('update: `closed` becomes RecordStatus.CLOSED, null releaseId detaches, lists are wrapped; CONFLICT is 409', async () => {
    const res = await f.h.request({
      method: 'PATCH',
      url: `${f.url}/${R}`,
      payload: { status: 'closed', releaseId: null, forecast: null, tags: [], links: [] },
    });
    expect(res.statusCode).toBe(200);
    const req = f.h.calls[0]!.request as UpdateManualRunRequest;
    expect(req).toMatchObject({
      runId: R,
      status: RecordStatus.CLOSED,
      releaseId: {},
      forecastValue: {},
      tags: { values: [] },
      links: { links: [] },
    });
    // A null forecast is only forecast_value's: the number field of older services would read it as a value.
    expect([req.releaseId!.value, req.forecastValue!.value, req.forecast]).toEqual([undefined, undefined, undefined]);
    await f.h.request({ method: 'PATCH', url: `${f.url}/${R}`, payload: { forecast: 2.5 } });
    expect(f.h.calls[1]!.request).toMatchObject({ forecastValue: { value: 2.5 }, forecast: 2.5 });
    expect(res.json().data).toMatchObject({ status: 'closed', closedAt: AT_JSON });
    const late = await f.h.request({ method: 'PATCH', url: `${f.url}/${R}`, payload: { name: 'late' } });
    expect(late.statusCode).toBe(409);
    expect(late.json().error.code).toBe('CONFLICT');
  });

  it('get and list: 404 for a run the service does not find; the status filter becomes the enum', async () => {
    expect((await f.h.request({ method: 'GET', url: `${f.url}/missing` })).statusCode).toBe(404);
    const list = await f.h.request({ as: 'viewer', method: 'GET', url: `${f.url}?status=open&page=3&limit=100` });
    expect(list.statusCode).toBe(200);
    expect(f.h.calls[1]!.request).toMatchObject({ status: RecordStatus.OPEN, page: { page: 3, limit: 100 } });
    expect(list.json().data[0].stats.total).toBe(3);
  });
});

describe('manual-runs routes: the run’s test cases', () => {
  it('list: the verdict filter (display forms understood) becomes the enum, the assignee passes through', async () => {
    const res = await f.h.request({ method: 'GET', url: `${f.url}/${R}/test-cases?result=Passed&assignee=none` });
    expect(res.statusCode).toBe(200);
    expect(f.h.calls[0]!.request).toMatchObject({ runId: R, result: Verdict.PASSED, assignee: 'none' });
    expect(res.json().data).toEqual([
      {
        _id: 'c'.repeat(24),
        runId: R,
        testCase: { _id: 't'.repeat(24), caseId: 'TC-3', title: 'Pay', suite: null },
        result: 'retest',
        assignee: { _id: 'u'.repeat(24), name: 'Alice', email: 'alice@example.test' },
        elapsed: 2.5,
        comment: '',
        linkedIssues: [],
        stepResults: [{ order: 1, status: 'blocked', comment: 'x' }],
        updatedAt: AT_JSON,
      },
    ]);
    await f.h.request({ method: 'GET', url: `${f.url}/${R}/test-cases?result=maybe` });
    expect(f.h.calls[1]!.request).toMatchObject({ result: Verdict.UNSPECIFIED });
  });

  it('update: a quick verdict (result and its alias, null unassigns) and a detailed result become enums', async () => {
    const quick = await f.h.request({
      method: 'PATCH',
      url: `${f.url}/${R}/test-cases/TC-3`,
      payload: { result: 'Failed', status: 'failed', assigneeUserId: null, elapsed: 3 },
    });
    expect(quick.statusCode).toBe(200);
    const q = f.h.calls[0]!.request as UpdateRunCaseRequest;
    expect(q).toMatchObject({ runId: R, caseRef: 'TC-3', result: Verdict.FAILED, status: Verdict.FAILED, assigneeUserId: {}, elapsed: 3 });
    expect(quick.json().data).toMatchObject({ result: 'passed', assignee: null });
    await f.h.request({
      method: 'PATCH',
      url: `${f.url}/${R}/test-cases/TC-3`,
      payload: {
        comment: '<b>x</b>',
        stepResults: [
          { order: 2, status: 'Skipped' },
          { order: 1, status: 'odd', comment: 'c' },
        ],
      },
    });
    expect(f.h.calls[1]!.request).toMatchObject({
      comment: '<b>x</b>',
      stepResults: {
        results: [
          { order: 2, status: Verdict.SKIPPED, comment: '' },
          { order: 1, status: Verdict.UNSPECIFIED, comment: 'c' },
        ],
      },
    });
    expect((f.h.calls[1]!.request as UpdateRunCaseRequest).result).toBeUndefined();
  });
});

describe('manual-runs routes: refusals', () => {
  it.each([
    ['no name', 'POST', '', {}, 'body.name'],
    ['an unknown selection mode', 'POST', '', { name: 'n', selectionMode: 'some' }, 'body.selectionMode'],
    ['a link that is no URI', 'POST', '', { name: 'n', links: [{ title: 't', url: 'not a uri' }] }, 'body.links.0.url'],
    ['a negative forecast', 'POST', '', { name: 'n', forecast: -1 }, 'body.forecast'],
    ['status on create', 'POST', '', { name: 'n', status: 'closed' }, 'body.status'],
    ['case ids on update', 'PATCH', `/${R}`, { testCaseIds: [] }, 'body.testCaseIds'],
    ['a status other than closed', 'PATCH', `/${R}`, { status: 'open' }, 'body.status'],
    ['an empty run update', 'PATCH', `/${R}`, {}, 'body'],
    ['an unknown status filter', 'GET', '?status=paused', undefined, 'query.status'],
    ['an empty verdict update', 'PATCH', `/${R}/test-cases/TC-1`, {}, 'body'],
    ['a negative elapsed time', 'PATCH', `/${R}/test-cases/TC-1`, { elapsed: -1 }, 'body.elapsed'],
    [
      'a step number below 1',
      'PATCH',
      `/${R}/test-cases/TC-1`,
      { stepResults: [{ order: 0, status: 'passed' }] },
      'body.stepResults.0.order',
    ],
    ['a step without status', 'PATCH', `/${R}/test-cases/TC-1`, { stepResults: [{ order: 1 }] }, 'body.stepResults.0.status'],
  ] as const)('refuses %s with 400 before calling the service', (_label, method, suffix, payload, path) =>
    expectRefusedBeforeCall(f, method, suffix, payload, path),
  );

  it('writes need a member or more (403 for viewers and api keys, no call)', () =>
    expectWritesForbidden(f, [
      ['POST', '', { name: 'x' }],
      ['PATCH', `/${R}`, { status: 'closed' }],
      ['PATCH', `/${R}/test-cases/TC-1`, { result: 'passed' }],
    ]));
});
