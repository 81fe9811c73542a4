/**
 * The `test-runs` route family over `app.inject`, with an in-memory runs service: what each route asks the
 * service (the page, the period as timestamps, the sections and the status filter as proto enums, the caller),
 * the JSON it answers (TestRunListItem from the RunSnapshot, the detail sections merged in, the test cases), the
 * web app's list filters, and what the gateway refuses before any call.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { create } from '@bufbuild/protobuf';
import { RunSnapshotSchema, RunStatus } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { RunSection, TestStatus } from '@assay/proto/assay/runs/v1/runs_pb';
import { AppError } from '@assay/errors';
import { runSnapshotToJson } from '@assay/contracts/runs/test-runs';
import { gatewayHarness, type Harness } from './harness';

const at = (iso: string) => timestampFromDate(new Date(iso));
const snapshot = (over: Record<string, unknown> = {}) => ({
  id: 'r'.repeat(24),
  counter: 3n,
  status: RunStatus.FAILED,
  startTime: at('2026-01-02T03:04:05.000Z'),
  endTime: at('2026-01-02T03:05:05.000Z'),
  duration: 60000n,
  testStats: { total: 4, passed: 2, failed: 1, skipped: 0, flaky: 1, timedOut: 1, totalAttempts: 5, retriedTests: 1 },
  git: { branch: 'main', environment: 'ci', commit: { hash: 'abc', message: 'Fix', author: 'Ada' } },
  url: 'https://ui.example.test/runs/r',
  tags: ['nightly'],
  ...over,
});

const testCase = {
  id: 'c'.repeat(24),
  testId: 't'.repeat(24),
  runId: 'r'.repeat(24),
  title: 'works',
  titlePath: ['login', 'works'],
  fullTitle: 'login › works',
  file: 'a.spec.ts',
  projectName: 'chromium',
  status: 'timedOut',
  outcome: 'unexpected',
  duration: 30,
  attempts: 1,
  retries: 0,
  quarantined: false,
  tags: [],
  error: { message: 'Test timeout' },
  startedAt: null,
  url: 'https://ui.example.test/c',
};

const detail = {
  errorCategory: { total: 1, categories: { timeout: 1 } },
  liveStats: {
    isRunning: false,
    completed: 4,
    expected: null,
    remaining: null,
    progress: null,
    quarantined: 0,
    interrupted: 0,
    lastActivityAt: '2026-01-02T03:05:05.000Z',
  },
  tagStats: [{ tag: '@smoke', total: 1, passed: 1, failed: 0, flaky: 0, skipped: 0 }],
};

let h: Harness;
/** The runs service answers as one from before ListRuns' `json` field (it ignores it). */
let olderRuns = false;
beforeAll(async () => {
  h = await gatewayHarness({
    runs: {
      async listRuns(req) {
        const runs = [snapshot(), snapshot({ id: 's'.repeat(24), status: RunStatus.RUNNING, endTime: undefined })];
        const page = { page: 2, limit: 10, total: 12n };
        // Asked for JSON, the service renders the public list itself (runs' toRunJson, held equal to this there).
        return req.json && !olderRuns
          ? { runsJson: Buffer.from(JSON.stringify(runs.map((r) => runSnapshotToJson(create(RunSnapshotSchema, r))))), page }
          : { runs, page };
      },
      async getRun(req) {
        if (req.runId === 'missing') throw new AppError('NOT_FOUND', 'Run not found or not accessible');
        return { run: snapshot({ id: req.runId }), detail: { ...detail, extra: 'dropped' } };
      },
      async listRunTestCases() {
        return { testCases: [{ ...testCase, internal: 'dropped' }], page: { page: 1, limit: 25, total: 1n } };
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

const P = () => `/api/v1/public/${h.projectId}`;

describe('test-runs routes', () => {
  it('list: the page and the period reach the service; runs answer as TestRunListItem with the page info', async () => {
    const res = await h.request({
      method: 'GET',
      url: `${P()}/test-runs?page=2&limit=10&start_date=2026-01-01T00:00:00Z&end_date=2026-01-31T00:00:00%2B01:00&status=passed`,
    });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([
      {
        method: 'listRuns',
        request: expect.objectContaining({
          projectId: h.projectId,
          page: expect.objectContaining({ page: 2, limit: 10 }),
          startTime: expect.objectContaining({ seconds: BigInt(Date.parse('2026-01-01T00:00:00Z') / 1000) }),
          endTime: expect.objectContaining({ seconds: BigInt(Date.parse('2026-01-30T23:00:00Z') / 1000) }),
          json: true,
        }),
        principal: h.caller('owner').principal,
      },
    ]);
    const body = res.json();
    expect(body.pagination).toEqual({ page: 2, limit: 10, total: 12, hasNext: false, hasPrev: true, hasMore: false });
    expect(body.data[0]).toEqual({
      id: 'r'.repeat(24),
      counter: 3,
      status: 'failed',
      startTime: '2026-01-02T03:04:05.000Z',
      endTime: '2026-01-02T03:05:05.000Z',
      duration: 60000,
      testStats: { total: 4, passed: 2, failed: 1, skipped: 0, flaky: 1, timedOut: 1, totalAttempts: 5, retriedTests: 1 },
      metadata: { git: { branch: 'main', environment: 'ci', commit: { hash: 'abc', message: 'Fix', author: 'Ada' } } },
      url: 'https://ui.example.test/runs/r',
    });
    expect(body.data[1]).toMatchObject({ status: 'running', endTime: null });
    // Without dates no period is sent; the defaults are page 1, limit 10.
    await h.request({ method: 'GET', url: `${P()}/test-runs` });
    expect(h.calls[1]!.request).toMatchObject({ page: { page: 1, limit: 10 } });
    expect(h.calls[1]!.request).not.toHaveProperty('startTime');
  });

  it('list: a runs service from before the `json` field (a rolling upgrade) answers snapshots, mapped as before', async () => {
    const current = (await h.request({ method: 'GET', url: `${P()}/test-runs` })).json();
    olderRuns = true;
    try {
      const res = await h.request({ method: 'GET', url: `${P()}/test-runs` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(current);
      expect(res.json().data).toHaveLength(2);
    } finally {
      olderRuns = false;
    }
  });

  it('list: the web app filters (branch, environment, status) reach the service, the status as the proto enum', async () => {
    const res = await h.request({
      method: 'GET',
      url: `${P()}/test-runs?branch=${encodeURIComponent('feature/checkout')}&environment=staging&status=running`,
    });
    expect(res.statusCode).toBe(200);
    expect(h.calls[0]!.request).toMatchObject({ branch: 'feature/checkout', environment: 'staging', status: RunStatus.RUNNING });
    await h.request({ method: 'GET', url: `${P()}/test-runs?status=failed` });
    expect(h.calls[1]!.request).toMatchObject({ status: RunStatus.FAILED });
    expect(h.calls[1]!.request).not.toHaveProperty('branch');
    expect(h.calls[1]!.request).not.toHaveProperty('environment');
    const bad = await h.request({ method: 'GET', url: `${P()}/test-runs?status=green` });
    expect([bad.statusCode, bad.json().error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(bad.json().error.details.map((d: { path: string }) => d.path)).toContain('query.status');
    expect(h.calls).toHaveLength(2);
  });

  it.each([
    ['one date without the other', 'start_date=2026-01-01T00:00:00Z', 'query.end_date'],
    ['a date that is not RFC 3339', 'start_date=2026-01-01&end_date=2026-01-02T00:00:00Z', 'query.start_date'],
    ['a start after the end', 'start_date=2026-02-01T00:00:00Z&end_date=2026-01-01T00:00:00Z', 'query.start_date'],
    ['page 0', 'page=0', 'query.page'],
  ])('list refuses %s with 400 before calling the service', async (_label, query, path) => {
    const res = await h.request({ method: 'GET', url: `${P()}/test-runs?${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(h.calls).toEqual([]);
  });

  it('list refuses a page size outside 10, 25, 50, 100 (INVALID_LIMIT)', async () => {
    expect((await h.request({ method: 'GET', url: `${P()}/test-runs?limit=7` })).json().error.code).toBe('INVALID_LIMIT');
    expect(h.calls).toEqual([]);
  });

  it('detail: the included sections reach the service as enums (`all` = every one); the run and its sections answer together', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/test-runs/${'r'.repeat(24)}?include=specs,errors` });
    expect(res.statusCode).toBe(200);
    expect(h.calls[0]!.request).toMatchObject({ runId: 'r'.repeat(24), include: [RunSection.ERRORS, RunSection.SPECS] });
    expect(res.json().data).toEqual({
      ...(await h.request({ method: 'GET', url: `${P()}/test-runs` })).json().data[0],
      ...detail,
    });
    await h.request({ method: 'GET', url: `${P()}/test-runs/x?include=all` });
    expect(h.calls[2]!.request).toMatchObject({
      include: [RunSection.ERRORS, RunSection.COVERAGE, RunSection.SPECS, RunSection.ARTIFACTS],
    });
    await h.request({ method: 'GET', url: `${P()}/test-runs/x` });
    expect(h.calls[3]!.request).toMatchObject({ include: [] });
  });

  it('detail refuses an unknown section before any call; a run the service does not find is 404', async () => {
    const bad = await h.request({ method: 'GET', url: `${P()}/test-runs/x?include=errors,logs` });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details).toEqual([
      { path: 'query.include', message: 'each value must be one of errors, coverage, specs, artifacts, all' },
    ]);
    expect(h.calls).toEqual([]);
    const missing = await h.request({ method: 'GET', url: `${P()}/test-runs/missing` });
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('test cases: the status filter becomes the proto enum; the cases answer as TestCase', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/test-runs/${'r'.repeat(24)}/test-cases?status=timedOut&limit=25` });
    expect(res.statusCode).toBe(200);
    expect(h.calls[0]!.request).toMatchObject({ runId: 'r'.repeat(24), status: TestStatus.TIMED_OUT, page: { page: 1, limit: 25 } });
    expect(res.json()).toEqual({
      success: true,
      data: [testCase],
      pagination: { page: 1, limit: 25, total: 1, hasNext: false, hasPrev: false, hasMore: false },
    });
    await h.request({ method: 'GET', url: `${P()}/test-runs/x/test-cases` });
    expect(h.calls[1]!.request).not.toHaveProperty('status');
    expect((await h.request({ method: 'GET', url: `${P()}/test-runs/x/test-cases?status=green` })).statusCode).toBe(400);
    expect(h.calls).toHaveLength(2);
  });

  it('an api key reads; a project the token does not cover is 404 and no token 401, before any call', async () => {
    expect((await h.request({ as: 'api_key', method: 'GET', url: `${P()}/test-runs` })).statusCode).toBe(200);
    h.calls.length = 0;
    expect((await h.request({ method: 'GET', url: `/api/v1/public/${'9'.repeat(24)}/test-runs` })).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: `${P()}/test-runs` })).statusCode).toBe(401);
    expect(h.calls).toEqual([]);
  });
});
