/**
 * The `test-runs` family's handlers (handlers/test-runs.ts over store/test-runs.ts and store/test-cases.ts), through
 * an in-memory Connect transport against a schema of their own: runs newest first with the kit's paging, the
 * time window and the exact filters (the unfiltered total from the count the database keeps), the run detail and its
 * sections, a run's test cases by public status, the web app's compact rows of a run, and the token-paged reads
 * other services make (results, snapshot, scan) with the contract's enums.
 */
import { Code } from '@connectrpc/connect';
import { RunStatus } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import {
  AttemptStatus,
  RuleOperation,
  RunResultView,
  RunSection,
  TestOutcome,
  TestStatus,
  type RunResult,
} from '@assay/proto/assay/runs/v1/runs_pb';
import { documentOf, runSnapshotToJson, type RunDetailSectionsJson, type TestCaseJson } from '@assay/contracts/runs/test-runs';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { as, principal } from '@assay/testkit';
import { normalizeMetadata } from '../../src/ingest/normalize';
import { MIGRATIONS_DIR } from '../../src/service';
import { failure, playwrightRun, runsUnit, streamRun, writer, type Item, type RunsUnit } from './support';

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
  it('answers the list as the public TestRun JSON with `json`: what the gateway made of the snapshots, byte for byte', async () => {
    const p = 'j'.repeat(24);
    await streamRun(u, p, mixed, { branch: 'release/ü', environment: 'staging' });
    await streamRun(u, p, [{ titlePath: ['still'], status: 'passed' }], { finish: false });
    const snapshots = await u.runs.listRuns({ projectId: p, page: { page: 1, limit: 10 } }, owner);
    const answer = await u.runs.listRuns({ projectId: p, page: { page: 1, limit: 10 }, json: true }, owner);
    expect(answer.runs).toEqual([]);
    expect(answer.page).toEqual(snapshots.page);
    const items = JSON.parse(Buffer.from(answer.runsJson).toString('utf8')) as ReturnType<typeof runSnapshotToJson>[];
    const expected = snapshots.runs.map(runSnapshotToJson);
    expect(items.map((r) => r.status)).toEqual(['running', 'interrupted']);
    // A running run's duration is its time so far: read a moment later, never shorter.
    expect(items[0]!.duration).toBeGreaterThanOrEqual(expected[0]!.duration);
    expect(JSON.stringify([{ ...items[0], duration: 0 }, items[1]])).toBe(JSON.stringify([{ ...expected[0], duration: 0 }, expected[1]]));
  });

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

  it('filters the list by exact branch, environment and status (the web app run list); refuses an unknown status', async () => {
    const p = 'f1'.repeat(12);
    await streamRun(u, p, [{ titlePath: ['a'], status: 'passed' }], { branch: 'main', environment: 'staging' });
    await streamRun(u, p, [{ titlePath: ['a'], status: 'failed' }], { branch: 'main', environment: 'prod' });
    await streamRun(u, p, [{ titlePath: ['a'], status: 'passed' }], { branch: 'feature/x', environment: 'staging' });
    await streamRun(u, p, [], { branch: 'main', environment: 'staging', finish: false });
    const counters = async (filter: { branch?: string; environment?: string; status?: RunStatus }) =>
      (await u.runs.listRuns({ projectId: p, ...filter }, owner)).runs.map((r) => Number(r.counter));
    expect(await counters({})).toEqual([4, 3, 2, 1]);
    expect(await counters({ branch: 'main' })).toEqual([4, 2, 1]);
    expect(await counters({ environment: 'staging' })).toEqual([4, 3, 1]);
    expect(await counters({ status: RunStatus.FAILED })).toEqual([2]);
    expect(await counters({ status: RunStatus.RUNNING })).toEqual([4]);
    expect(await counters({ branch: 'main', environment: 'staging', status: RunStatus.PASSED })).toEqual([1]);
    expect(await counters({ branch: 'feature' })).toEqual([]);
    const page = await u.runs.listRuns({ projectId: p, branch: 'main', page: { page: 1, limit: 10 } }, owner);
    expect(page.page).toMatchObject({ total: 3n });
    expect((await failure(u.runs.listRuns({ projectId: p, status: RunStatus.UNSPECIFIED }, owner))).paths).toEqual(['query.status']);
  });

  it("totals the unfiltered list with the project's count the database keeps: once a run has its number, until deleted", async () => {
    const p = 'n1'.repeat(12);
    const list = (filter: { branch?: string } = {}) => u.runs.listRuns({ projectId: p, ...filter, page: { page: 1, limit: 10 } }, owner);
    const scanned = async () => BigInt((await u.db.pool.query('SELECT count(*)::int AS n FROM runs WHERE project_id = $1', [p])).rows[0].n);
    expect((await list()).page!.total).toBe(0n);
    const first = await streamRun(u, p, [{ titlePath: ['a'], status: 'passed' }]);
    await streamRun(u, p, [], { branch: 'dev', finish: false }); // numbered as it starts
    await playwrightRun(u, p, [{ title: 'a.spec.ts', specs: [{ title: 'one', tests: [{ results: [{ status: 'passed' }] }] }] }]); // numbered last
    // Two shards of one build start one run.
    const shard = (current: number) =>
      u.ingestion.start(p, writer(), { metadata: normalizeMetadata({}), buildId: 'ci-9', shard: { current, total: 2 } });
    expect((await shard(1)).runId).toBe((await shard(2)).runId);
    // A report refused midway (a NUL the database cannot store) leaves no run and counts none.
    const refused = [{ title: 'b.spec.ts', specs: [{ title: 'a\u0000b', tests: [{ results: [{ status: 'passed' }] }] }] }];
    expect(await playwrightRun(u, p, refused).catch((e: unknown) => e)).toBeInstanceOf(Error);
    expect((await list()).page!.total).toBe(4n);
    expect(await scanned()).toBe(4n);

    await u.admin.deleteRun({ projectId: p, runId: first.runId });
    expect((await list()).page!.total).toBe(3n);
    expect(await scanned()).toBe(3n);
    // A filtered list still counts its own runs.
    expect((await list({ branch: 'dev' })).page!.total).toBe(1n);
    // Another project's count is its own.
    expect((await u.runs.listRuns({ projectId: 'n2'.repeat(12) }, owner)).page!.total).toBe(0n);
  });

  it("the count's migration counts the runs there are already (its down, then its up, over this schema's runs)", async () => {
    const sql = await readFile(path.join(MIGRATIONS_DIR, '1795800000000_project-run-counts.sql'), 'utf8');
    const [up, down] = sql.split('-- Down Migration');
    const p = 'm1'.repeat(12);
    for (let i = 0; i < 3; i++) await streamRun(u, p, [{ titlePath: [`t${i}`], status: 'passed' }]);
    const counts = async () =>
      (await u.db.pool.query('SELECT project_id, runs FROM project_run_counts WHERE runs > 0 ORDER BY project_id')).rows as {
        project_id: string;
        runs: number;
      }[];
    const scanned = (await u.db.pool.query('SELECT project_id, count(*)::int AS runs FROM runs GROUP BY 1 ORDER BY 1')).rows;
    expect(await counts()).toEqual(scanned);
    expect(scanned).toContainEqual({ project_id: p, runs: 3 });

    await u.db.pool.query(down!);
    await u.db.pool.query(up!);
    expect(await counts()).toEqual(scanned);
    await streamRun(u, p, [{ titlePath: ['after'], status: 'passed' }]);
    expect((await u.runs.listRuns({ projectId: p }, owner)).page!.total).toBe(4n);
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

  it("answers a run's compact rows for the web app: report order, spec files over all results, error groups, the bound", async () => {
    const R = 'f2'.repeat(12);
    const run = await streamRun(u, R, [...mixed, { titlePath: ['q'], file: 'c.spec.ts', status: 'failed', errors: [{ message: 'q' }] }]);
    await u.admin.createRule({ projectId: R, name: 'q', operations: [RuleOperation.QUARANTINE], titlePattern: '^q$' });
    const again = await streamRun(u, R, [{ titlePath: ['q'], file: 'c.spec.ts', status: 'failed', errors: [{ message: 'q' }] }]);
    const res = await u.runs.listRunRows({ projectId: R, runId: run.runId }, owner);
    expect(res.total).toBe(8);
    expect(res.specs.map((s) => [s.file, s.total, s.passed, s.failed, s.flaky, s.skipped, Number(s.durationMs)])).toEqual([
      ['a.spec.ts', 2, 1, 1, 0, 0, 30],
      ['b.spec.ts', 5, 0, 2, 1, 2, 30],
      ['c.spec.ts', 1, 0, 1, 0, 0, 0],
    ]);
    expect(res.specs[0]!.id).toMatch(/^[0-9a-f]{24}$/);
    expect(res.rows.map((r) => [r.title, r.spec, r.status, r.retries])).toEqual([
      ['login › works', 0, TestStatus.PASSED, 0],
      ['login › asserts', 0, TestStatus.FAILED, 0],
      ['cart › slow', 1, TestStatus.TIMED_OUT, 0],
      ['cart › net', 1, TestStatus.FAILED, 0],
      ['cart › flaky', 1, TestStatus.FLAKY, 1],
      ['cart › skipped', 1, TestStatus.SKIPPED, 0],
      ['cart › cut', 1, TestStatus.INTERRUPTED, 0],
      ['q', 2, TestStatus.FAILED, 0],
    ]);
    // The error group of each failed or flaky result is the run detail's errorGroups[].id; none for the others.
    const groups = documentOf<RunDetailSectionsJson>(
      (await u.runs.getRun({ projectId: R, runId: run.runId, include: [RunSection.ERRORS] }, owner)).detail,
    ).errorGroups!;
    const byTitle = new Map(res.rows.map((r) => [r.title, r]));
    expect(groups.find((g) => g.message === 'waiting for locator')!.id).toBe(byTitle.get('cart › flaky')!.errorGroupId);
    expect(groups.find((g) => g.message === 'q')!.id).toBe(byTitle.get('q')!.errorGroupId);
    expect(byTitle.get('login › works')!.errorGroupId).toBe('');
    const quarantined = await u.runs.listRunRows({ projectId: R, runId: again.runId }, owner);
    expect(quarantined.rows.map((r) => [r.title, r.quarantined])).toEqual([['q', true]]);
    expect(res.rows.some((r) => r.quarantined)).toBe(false);

    const cut = await u.runs.listRunRows({ projectId: R, runId: run.runId, limit: 3 }, owner);
    expect([cut.rows.length, cut.total, cut.specs.length]).toEqual([3, 8, 3]);
    expect((await failure(u.runs.listRunRows({ projectId: 'f'.repeat(24), runId: run.runId }, owner))).reason).toBe('NOT_FOUND');
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

    // Result numbers with gaps (a test sent twice keeps its first; here a row is taken out): every other result still
    // comes once and in order, on pages of up to 2 numbers (one of them short), until the empty token.
    const ids = async (query: string) => (await u.db.pool.query(query, [run.runId])).rows.map((r) => r.id as string);
    await u.db.pool.query('DELETE FROM results WHERE run_id = $1 AND seq = 2', [run.runId]);
    const kept = await ids('SELECT id FROM results WHERE run_id = $1 ORDER BY seq');
    expect(kept).toHaveLength(6);
    const sizes: number[] = [];
    const paged: string[] = [];
    token = '';
    do {
      const res = await u.runs.listRunResults({ runId: run.runId, pageToken: token, pageSize: 2 });
      sizes.push(res.results.length);
      paged.push(...res.results.map((r) => r.id));
      token = res.nextPageToken;
    } while (token);
    expect(sizes).toEqual([2, 1, 2, 1]);
    expect(paged).toEqual(kept);
    for (const pageToken of ['x', '12abc', '-5', '99999999999'])
      expect((await failure(u.runs.listRunResults({ runId: run.runId, pageToken }))).reason).toBe('VALIDATION_ERROR');
    expect((await failure(u.runs.listRunResults({ runId: 'r'.repeat(24) }))).reason).toBe('NOT_FOUND');
    expect((await failure(u.runs.getRunSnapshot({ runId: 'r'.repeat(24) }))).reason).toBe('NOT_FOUND');
  });

  it('answers a run’s results in the ROLLUP view with only what a rollup reads, and refuses a view it does not know', async () => {
    const run = await streamRun(u, P, mixed);
    const page = (view?: RunResultView) =>
      u.runs.listRunResults({ runId: run.runId, pageSize: 100, ...(view === undefined ? {} : { view }) });
    const full = await page(RunResultView.FULL);
    expect((await page()).results).toEqual(full.results);
    expect(full.results.filter((r) => r.errorMessage !== '')).toHaveLength(4);
    expect(new Set(full.results.map((r) => r.runId))).toEqual(new Set([run.runId]));

    const rollup = await page(RunResultView.ROLLUP);
    expect(rollup.run!.id).toBe(run.runId);
    expect(rollup.nextPageToken).toBe('');
    const rolled = (r: RunResult) => [r.testId, r.file, r.titlePath, r.projectName, r.outcome, r.durationMs, r.tags];
    expect(rollup.results.map(rolled)).toEqual(full.results.map(rolled));
    expect(rollup.results.map(rolled)).toContainEqual([
      expect.any(String),
      'a.spec.ts',
      ['login', 'works'],
      expect.any(String),
      TestOutcome.EXPECTED,
      10n,
      ['@smoke'],
    ]);
    for (const r of rollup.results)
      expect([r.id, r.runId, r.projectId, r.status, r.attempts, r.quarantined, r.errorMessage, r.errorFingerprint]).toEqual([
        '',
        '',
        '',
        AttemptStatus.UNSPECIFIED,
        0,
        false,
        '',
        '',
      ]);
    expect((await failure(u.runs.listRunResults({ runId: run.runId, view: 7 as RunResultView }))).reason).toBe('VALIDATION_ERROR');
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
