/**
 * The `test-runs` family's handlers (handlers/test-runs.ts over store/test-runs.ts and store/test-cases.ts), through
 * an in-memory Connect transport against a schema of their own: runs newest first with the kit's paging and the
 * time window, the run detail and its sections, a run's test cases by public status, and the token-paged reads
 * other services make (results, snapshot, scan) with the contract's enums.
 */
import { Code } from '@connectrpc/connect';
import { RunStatus } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { AttemptStatus, RunSection, TestOutcome, TestStatus } from '@assay/proto/assay/runs/v1/runs_pb';
import { documentOf, type RunDetailSectionsJson, type TestCaseJson } from '@assay/contracts/runs/test-runs';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { as, principal } from '@assay/testkit';
import { failure, runsUnit, streamRun, type Item, type RunsUnit } from './support';

let u: RunsUnit;
const owner = as(principal('owner'));
const P = 'a'.repeat(24);

/** One test of each public status, with errors of several categories. */
const mixed: Item[] = [
  { titlePath: ['login', 'works'], status: 'passed', duration: 10, tags: ['@smoke'] },
  {
    titlePath: ['login', 'asserts'],
    status: 'failed',
    duration: 20,
    errors: [{ message: 'expect(received).toBe(expected)' }],
    tags: ['@smoke'],
  },
  {
    titlePath: ['cart', 'slow'],
    file: 'b.spec.ts',
    status: 'timedOut',
    duration: 30,
    errors: [{ message: 'Test timeout of 30000ms exceeded.' }],
  },
  { titlePath: ['cart', 'net'], file: 'b.spec.ts', status: 'failed', errors: [{ message: 'net::ERR_CONNECTION_REFUSED' }] },
  { titlePath: ['cart', 'flaky'], file: 'b.spec.ts', status: 'failed', retry: 0, errors: [{ message: 'waiting for locator' }] },
  {
    titlePath: ['cart', 'flaky'],
    file: 'b.spec.ts',
    status: 'passed',
    retry: 1,
    attachments: [{ name: 'trace', contentType: 'application/zip', path: 't.zip' }],
  },
  { titlePath: ['cart', 'skipped'], file: 'b.spec.ts', status: 'skipped' },
  { titlePath: ['cart', 'cut'], file: 'b.spec.ts', status: 'interrupted' },
];

beforeAll(async () => {
  u = await runsUnit('runs_test_runs');
});
afterAll(() => u.db.drop());

describe('test-runs handlers', () => {
  it('lists runs newest first as snapshots (status enum, stats, deep link), paged by the kit (limit clamped to 100)', async () => {
    const p = 'b'.repeat(24);
    const base = Date.parse('2026-01-10T00:00:00Z');
    for (let i = 0; i < 3; i++)
      await streamRun(u, p, [{ titlePath: [`t${i}`], status: 'passed' }], { startTime: new Date(base + i * 3600_000) });
    const first = await u.runs.listRuns({ projectId: p, page: { page: 1, limit: 2 } }, owner);
    expect(first.runs.map((r) => Number(r.counter))).toEqual([3, 2]);
    expect(first.page).toMatchObject({ page: 1, limit: 2, total: 3n });
    expect(first.runs[0]).toMatchObject({
      status: RunStatus.PASSED,
      testStats: { total: 1, passed: 1 },
      git: { branch: 'main', commit: { hash: 'abc123' } },
      url: `https://ui.example.test/projects/${p}/runs/${first.runs[0]!.id}`,
    });
    expect((await u.runs.listRuns({ projectId: p, page: { page: 2, limit: 2 } }, owner)).runs.map((r) => Number(r.counter))).toEqual([1]);
    expect((await u.runs.listRuns({ projectId: p, page: { page: 1, limit: 1000 } }, owner)).page!.limit).toBe(100);
    const window = await u.runs.listRuns(
      {
        projectId: p,
        startTime: timestampFromDate(new Date(base + 1800_000)),
        endTime: timestampFromDate(new Date(base + 3600_000)),
      },
      owner,
    );
    expect(window.runs.map((r) => Number(r.counter))).toEqual([2]);
  });

  it('gives a running run its duration so far, by the service clock', async () => {
    const p = 'c'.repeat(24);
    const run = await streamRun(u, p, [], { finish: false, startTime: new Date(Date.now() - 60_000) });
    const snap = await u.runs.getRunSnapshot({ runId: run.runId }, owner);
    expect(snap.run!.status).toBe(RunStatus.RUNNING);
    expect(Number(snap.run!.duration)).toBeGreaterThanOrEqual(60_000);
    u.shift(3600_000);
    try {
      expect(Number((await u.runs.getRunSnapshot({ runId: run.runId }, owner)).run!.duration)).toBeGreaterThanOrEqual(3660_000);
    } finally {
      u.shift(-3600_000);
    }
    expect(snap).toMatchObject({ projectId: p, orgId: 'c'.repeat(24) });
  });

  it('answers the run detail: error categories, live stats, tag stats; sections only when asked', async () => {
    const run = await streamRun(u, P, mixed, { totalTests: 10 });
    // An interrupted test makes the run interrupted (before failures count).
    expect(run.finished!.status).toBe('interrupted');
    const plain = await u.runs.getRun({ projectId: P, runId: run.runId }, owner);
    expect(plain.run!.status).toBe(RunStatus.INTERRUPTED);
    const d = documentOf<RunDetailSectionsJson>(plain.detail);
    expect(d.errorCategory).toEqual({ total: 3, categories: { assertion: 1, timeout: 1, network: 1, element: 0, other: 0 } });
    expect(d.liveStats).toMatchObject({ isRunning: false, completed: 7, expected: 10, remaining: 3, progress: 70, interrupted: 1 });
    expect(d.tagStats).toEqual([{ tag: '@smoke', total: 2, passed: 1, failed: 1, flaky: 0, skipped: 0 }]);
    expect(Object.keys(d)).toEqual(['errorCategory', 'liveStats', 'tagStats']);

    const full = documentOf<RunDetailSectionsJson>(
      (
        await u.runs.getRun(
          { projectId: P, runId: run.runId, include: [RunSection.ERRORS, RunSection.COVERAGE, RunSection.SPECS, RunSection.ARTIFACTS] },
          owner,
        )
      ).detail,
    );
    const groups = full.errorGroups!.map((g) => ({ message: g.message, count: g.count, failed: g.failed, flaky: g.flaky }));
    expect(groups).toHaveLength(4);
    expect(groups).toContainEqual({ message: 'waiting for locator', count: 1, failed: 0, flaky: 1 });
    expect(groups).toContainEqual({ message: 'net::ERR_CONNECTION_REFUSED', count: 1, failed: 1, flaky: 0 });
    expect(full.coverage).toBeNull();
    expect(full.specs!.map((s) => [s.file, s.total, s.passed, s.failed, s.flaky, s.skipped])).toEqual([
      ['a.spec.ts', 2, 1, 1, 0, 0],
      ['b.spec.ts', 5, 0, 2, 1, 2],
    ]);
    expect(full.specs![0]!.url).toBe(`https://ui.example.test/projects/${P}/runs/${run.runId}/specs/${full.specs![0]!.id}`);
    expect(full.artifacts).toMatchObject({ count: 1, items: [{ name: 'trace', retry: 1, title: 'cart › flaky' }] });
  });

  it('refuses an unknown section and an unknown run', async () => {
    const run = await streamRun(u, P, []);
    expect(await failure(u.runs.getRun({ projectId: P, runId: run.runId, include: [RunSection.UNSPECIFIED] }, owner))).toEqual({
      code: Code.InvalidArgument,
      reason: 'VALIDATION_ERROR',
      paths: ['query.include.0'],
    });
    expect((await failure(u.runs.getRun({ projectId: 'f'.repeat(24), runId: run.runId }, owner))).reason).toBe('NOT_FOUND');
  });

  it("lists a run's test cases in report order, filtered by public status; refuses UNSPECIFIED", async () => {
    const run = await streamRun(u, P, mixed);
    const all = await u.runs.listRunTestCases({ projectId: P, runId: run.runId, page: { page: 1, limit: 100 } }, owner);
    const cases = all.testCases.map(documentOf<TestCaseJson>);
    expect(cases.map((c) => [c.fullTitle, c.status, c.outcome])).toEqual([
      ['login › works', 'passed', 'expected'],
      ['login › asserts', 'failed', 'unexpected'],
      ['cart › slow', 'timedOut', 'unexpected'],
      ['cart › net', 'failed', 'unexpected'],
      ['cart › flaky', 'flaky', 'flaky'],
      ['cart › skipped', 'skipped', 'skipped'],
      ['cart › cut', 'interrupted', 'skipped'],
    ]);
    expect(cases[4]).toMatchObject({ attempts: 2, retries: 1, error: { message: 'waiting for locator' }, title: 'flaky' });
    expect(all.page).toMatchObject({ total: 7n });
    for (const [status, title] of [
      [TestStatus.FLAKY, 'cart › flaky'],
      [TestStatus.TIMED_OUT, 'cart › slow'],
      [TestStatus.INTERRUPTED, 'cart › cut'],
    ] as const) {
      const res = await u.runs.listRunTestCases({ projectId: P, runId: run.runId, status }, owner);
      expect(res.testCases.map((c) => documentOf<TestCaseJson>(c).fullTitle)).toEqual([title]);
    }
    expect(
      (await u.runs.listRunTestCases({ projectId: P, runId: run.runId, status: TestStatus.FAILED, page: { page: 1, limit: 1 } }, owner))
        .page,
    ).toMatchObject({ limit: 1, total: 2n });
    expect(
      (await failure(u.runs.listRunTestCases({ projectId: P, runId: run.runId, status: TestStatus.UNSPECIFIED }, owner))).paths,
    ).toEqual(['query.status']);
    expect((await failure(u.runs.listRunTestCases({ projectId: P, runId: 'r'.repeat(24) }, owner))).reason).toBe('NOT_FOUND');
  });

  it('pages a run’s results for other services by token, with the attempt status and outcome enums', async () => {
    const run = await streamRun(u, P, mixed);
    const seen: { status: AttemptStatus; outcome: TestOutcome }[] = [];
    let token = '';
    let pages = 0;
    do {
      const res = await u.runs.listRunResults({ runId: run.runId, pageToken: token, pageSize: 3 });
      expect(res.run!.id).toBe(run.runId);
      seen.push(...res.results.map((r) => ({ status: r.status, outcome: r.outcome })));
      token = res.nextPageToken;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual([
      { status: AttemptStatus.PASSED, outcome: TestOutcome.EXPECTED },
      { status: AttemptStatus.FAILED, outcome: TestOutcome.UNEXPECTED },
      { status: AttemptStatus.TIMED_OUT, outcome: TestOutcome.UNEXPECTED },
      { status: AttemptStatus.FAILED, outcome: TestOutcome.UNEXPECTED },
      { status: AttemptStatus.PASSED, outcome: TestOutcome.FLAKY },
      { status: AttemptStatus.SKIPPED, outcome: TestOutcome.SKIPPED },
      { status: AttemptStatus.INTERRUPTED, outcome: TestOutcome.SKIPPED },
    ]);
    expect((await failure(u.runs.listRunResults({ runId: run.runId, pageToken: 'x' }))).reason).toBe('VALIDATION_ERROR');
    expect((await failure(u.runs.listRunResults({ runId: 'r'.repeat(24) }))).reason).toBe('NOT_FOUND');
    expect((await failure(u.runs.getRunSnapshot({ runId: 'r'.repeat(24) }))).reason).toBe('NOT_FOUND');
  });

  it('scans every run of a project by counter, running ones included', async () => {
    const p = 'd'.repeat(24);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await streamRun(u, p, [], { finish: i < 2 })).runId);
    const first = await u.runs.scanRuns({ projectId: p, pageSize: 2 });
    expect(first.runs.map((r) => r.run!.id)).toEqual(ids.slice(0, 2));
    expect(first.nextPageToken).toBe('2');
    const second = await u.runs.scanRuns({ projectId: p, pageToken: first.nextPageToken, pageSize: 2 });
    expect(second.runs.map((r) => [r.run!.id, r.run!.status, r.orgId])).toEqual([[ids[2], RunStatus.RUNNING, 'c'.repeat(24)]]);
    expect(second.nextPageToken).toBe('');
    expect((await failure(u.runs.scanRuns({ projectId: p, pageToken: 'abc' }))).reason).toBe('VALIDATION_ERROR');
  });
});
