/**
 * The `manual-runs` family's handlers (handlers/manual-runs.ts over store/manual-runs.ts): which cases a run
 * holds (all, or the selected cases and suites), the rollup counts per verdict, closing (stamped with the fixed
 * clock; a closed run accepts only releaseId), the status filter, and the run's test cases: quick verdicts and
 * detailed results with the verdict enum, the filters, and who may write.
 */
import { Code } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { CaseStatus, RecordStatus, SelectionMode, Verdict } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { ALICE, failure, handlerSuite, newProject, NOW, owner, READ_ONLY, type HandlerSuite } from './support';

let s: HandlerSuite;
beforeAll(async () => {
  s = await handlerSuite('manual-runs');
});
afterAll(() => s.db.drop());

/** A project with suites A (child A1) and B and four cases: TC-1 in A, TC-2 in A1, TC-3 (draft) in A, TC-4 in B. */
async function project() {
  const projectId = newProject();
  const suite = async (name: string, parentSuiteId?: string) =>
    (await s.client.createSuite({ projectId, name, parentSuiteId }, owner)).suite!.id;
  const a = await suite('A');
  const a1 = await suite('A1', a);
  const b = await suite('B');
  const kase = async (suiteId: string, status?: CaseStatus) =>
    (await s.client.createCase({ projectId, title: 'c', suiteId, status }, owner)).testCase!;
  const cases = [await kase(a), await kase(a1), await kase(a, CaseStatus.DRAFT), await kase(b)];
  return { projectId, suites: { a, a1, b }, cases };
}

const createRun = (projectId: string, over: Record<string, unknown> = {}) =>
  s.client.createManualRun({ projectId, name: 'Run', ...over }, owner).then((r) => r.run!);
const runCases = (projectId: string, runId: string, over: Record<string, unknown> = {}) =>
  s.client.listRunCases({ projectId, runId, ...over }, owner).then((r) => r.runCases.map((c) => c.testCase!.caseId));

describe('manual-runs handlers: runs', () => {
  it('holds every case of the project in `all` mode (drafts too), untested, open', async () => {
    const { projectId } = await project();
    const run = await createRun(projectId, {
      note: '<b>go</b><script>x</script>',
      tags: ['x', ' x '],
      links: [{ title: 'CI', url: 'https://ci.test/1' }],
    });
    expect(run).toMatchObject({
      name: 'Run',
      note: '<b>go</b>',
      selectionMode: SelectionMode.ALL,
      status: RecordStatus.OPEN,
      tags: ['x'],
      links: [{ title: 'CI', url: 'https://ci.test/1' }],
      stats: { total: 4, untested: 4, passed: 0 },
      lastModifiedBy: { name: 'Ada Tester' },
    });
    expect(await runCases(projectId, run.id)).toEqual(['TC-1', 'TC-2', 'TC-3', 'TC-4']);
  });

  it('holds the named cases (by TC-n or _id, any status) and the active cases of the suites and their sub-suites', async () => {
    const { projectId, suites, cases } = await project();
    const bySuite = await createRun(projectId, { selectionMode: SelectionMode.SELECTED, suiteIds: [suites.a] });
    expect(await runCases(projectId, bySuite.id)).toEqual(['TC-1', 'TC-2']);
    const named = await createRun(projectId, { selectionMode: SelectionMode.SELECTED, testCaseIds: ['tc-3', cases[3]!.id] });
    expect(await runCases(projectId, named.id)).toEqual(['TC-3', 'TC-4']);
    expect(named.stats!.total).toBe(2);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an UNSPECIFIED selection mode', { selectionMode: SelectionMode.UNSPECIFIED }, 'body.selectionMode'],
    ['case ids in `all` mode', { testCaseIds: ['TC-1'] }, 'body.testCaseIds'],
    ['suite ids in `all` mode', { suiteIds: ['x'] }, 'body.suiteIds'],
    ['`selected` with nothing selected', { selectionMode: SelectionMode.SELECTED }, 'body.selectionMode'],
    ['a case of no case of the project', { selectionMode: SelectionMode.SELECTED, testCaseIds: ['TC-1', 'TC-99'] }, 'body.testCaseIds.1'],
    ['a suite of no suite of the project', { selectionMode: SelectionMode.SELECTED, suiteIds: ['0'.repeat(24)] }, 'body.suiteIds.0'],
    ['a link that is not http(s)', { links: [{ title: 'x', url: 'ftp://x.test' }] }, 'body.links.0.url'],
    ['a link without a title', { links: [{ title: ' ', url: 'https://x.test' }] }, 'body.links.0.title'],
    ['a negative forecast', { forecast: -1 }, 'body.forecast'],
    ['a release of no release of the project', { releaseId: '0'.repeat(24) }, 'body.releaseId'],
    ['a blank name', { name: ' ' }, 'body.name'],
  ])('refuses %s (VALIDATION_ERROR) and writes nothing', async (_label, over, path) => {
    const { projectId } = await project();
    expect(await failure(createRun(projectId, over))).toMatchObject({ reason: 'VALIDATION_ERROR', paths: [path] });
    expect((await s.client.listManualRuns({ projectId }, owner)).page!.total).toBe(0n);
  });

  it('closes with the clock; a closed run refuses every change but releaseId (CONFLICT) and never reopens', async () => {
    const { projectId } = await project();
    const run = await createRun(projectId);
    const { release } = await s.client.createRelease({ projectId, name: 'R' }, owner);
    const closed = (await s.client.updateManualRun({ projectId, runId: run.id, status: RecordStatus.CLOSED, name: 'Final' }, owner)).run!;
    expect(closed).toMatchObject({ status: RecordStatus.CLOSED, name: 'Final' });
    expect(closed.closedAt).toEqual(timestampFromDate(NOW));
    const refused = await failure(s.client.updateManualRun({ projectId, runId: run.id, name: 'x', tags: { values: [] } }, owner));
    expect(refused).toMatchObject({ code: Code.FailedPrecondition, reason: 'CONFLICT' });
    const moved = await s.client.updateManualRun({ projectId, runId: run.id, releaseId: { value: release!.id } }, owner);
    expect(moved.run!.releaseId).toBe(release!.id);
    expect((await failure(s.client.updateManualRun({ projectId, runId: run.id, status: RecordStatus.OPEN }, owner))).paths).toEqual([
      'body.status',
    ]);
  });

  it('switching to `all` brings in the cases the run lacks, keeping the verdicts', async () => {
    const { projectId, suites } = await project();
    const run = await createRun(projectId, { selectionMode: SelectionMode.SELECTED, suiteIds: [suites.b] });
    await s.client.updateRunCase({ projectId, runId: run.id, caseRef: 'TC-4', result: Verdict.PASSED }, owner);
    const all = (await s.client.updateManualRun({ projectId, runId: run.id, selectionMode: SelectionMode.ALL }, owner)).run!;
    expect(all).toMatchObject({ selectionMode: SelectionMode.ALL, stats: { total: 4, passed: 1, untested: 3 } });
    expect(await runCases(projectId, run.id)).toEqual(['TC-4', 'TC-1', 'TC-2', 'TC-3']);
  });

  it('sets and clears the forecast with forecast_value; a gateway older than it sends only forecast', async () => {
    const { projectId } = await project();
    const run = await createRun(projectId);
    const patch = async (over: Record<string, unknown>) =>
      (await s.client.updateManualRun({ projectId, runId: run.id, ...over }, owner)).run!.forecast;
    expect(await patch({ forecast: 2 })).toBe(2);
    expect(await patch({ forecastValue: { value: 3.5 }, forecast: 3.5 })).toBe(3.5);
    // forecast_value wins: it is what a gateway that knows it means.
    expect(await patch({ forecastValue: {}, forecast: 9 })).toBeUndefined();
    expect((await s.client.getManualRun({ projectId, runId: run.id }, owner)).run!.forecast).toBeUndefined();
    expect((await failure(patch({ forecastValue: { value: -1 } }))).paths).toEqual(['body.forecast']);
  });

  it('refuses an empty update and answers NOT_FOUND for a run of another project', async () => {
    const { projectId } = await project();
    const run = await createRun(projectId);
    expect((await failure(s.client.updateManualRun({ projectId, runId: run.id }, owner))).paths).toEqual(['body']);
    for (const [p, runId] of [
      [projectId, '0'.repeat(24)],
      [newProject(), run.id],
    ] as const) {
      expect((await failure(s.client.getManualRun({ projectId: p, runId }, owner))).reason).toBe('NOT_FOUND');
      expect((await failure(s.client.updateManualRun({ projectId: p, runId, name: 'x' }, owner))).reason).toBe('NOT_FOUND');
      expect((await failure(s.client.listRunCases({ projectId: p, runId }, owner))).reason).toBe('NOT_FOUND');
    }
  });

  it('lists runs newest first with their stats, filtered by status (UNSPECIFIED refused)', async () => {
    const { projectId } = await project();
    const first = await createRun(projectId, { name: 'first' });
    await createRun(projectId, { name: 'second' });
    await s.client.updateManualRun({ projectId, runId: first.id, status: RecordStatus.CLOSED }, owner);
    const names = async (status?: RecordStatus) =>
      (await s.client.listManualRuns({ projectId, status }, owner)).runs.map((r) => [r.name, r.stats!.total]);
    expect(await names()).toEqual([
      ['second', 4],
      ['first', 4],
    ]);
    expect(await names(RecordStatus.CLOSED)).toEqual([['first', 4]]);
    expect((await failure(s.client.listManualRuns({ projectId, status: RecordStatus.UNSPECIFIED }, owner))).paths).toEqual([
      'query.status',
    ]);
  });
});

describe('manual-runs handlers: the run’s test cases', () => {
  it('records a quick verdict (result or its alias status, assignee, elapsed) and the stats follow', async () => {
    const { projectId } = await project();
    const run = await createRun(projectId);
    const rc = (
      await s.client.updateRunCase(
        { projectId, runId: run.id, caseRef: 'TC-1', result: Verdict.FAILED, assigneeUserId: { value: ALICE.email }, elapsed: 12.5 },
        owner,
      )
    ).runCase!;
    expect(rc).toMatchObject({ result: Verdict.FAILED, assignee: { id: ALICE.id }, elapsed: 12.5, testCase: { caseId: 'TC-1' } });
    await s.client.updateRunCase({ projectId, runId: run.id, caseRef: 'TC-2', status: Verdict.BLOCKED, result: Verdict.BLOCKED }, owner);
    const stats = (await s.client.getManualRun({ projectId, runId: run.id }, owner)).run!.stats;
    expect(stats).toMatchObject({ total: 4, untested: 2, failed: 1, blocked: 1 });
    const unassigned = await s.client.updateRunCase({ projectId, runId: run.id, caseRef: rc.id, assigneeUserId: {} }, owner);
    expect(unassigned.runCase!.assignee).toBeUndefined();
  });

  it('records a detailed result: sanitized comment, linked issues, step results sorted by step', async () => {
    const { projectId, cases } = await project();
    const run = await createRun(projectId);
    const rc = (
      await s.client.updateRunCase(
        {
          projectId,
          runId: run.id,
          caseRef: cases[0]!.id,
          comment: '<i>flaky</i><script>x</script>',
          linkedIssues: { issues: [{ displayId: 'J-9' }] },
          stepResults: {
            results: [
              { order: 2, status: Verdict.FAILED, comment: 'no' },
              { order: 1, status: Verdict.PASSED, comment: '<b>ok</b>' },
            ],
          },
        },
        owner,
      )
    ).runCase!;
    expect(rc).toMatchObject({ comment: '<i>flaky</i>', linkedIssues: [{ displayId: 'J-9' }], result: Verdict.UNTESTED });
    expect(rc.stepResults.map((x) => [x.order, x.status, x.comment])).toEqual([
      [1, Verdict.PASSED, '<b>ok</b>'],
      [2, Verdict.FAILED, 'no'],
    ]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a quick verdict with a detailed result', { result: Verdict.PASSED, comment: 'x' }, 'body'],
    ['nothing to change', {}, 'body'],
    ['an UNSPECIFIED result', { result: Verdict.UNSPECIFIED }, 'body.result'],
    ['result and status that differ', { result: Verdict.PASSED, status: Verdict.FAILED }, 'body.status'],
    ['a negative elapsed time', { elapsed: -1 }, 'body.elapsed'],
    ['an assignee who is no member', { assigneeUserId: { value: 'eve@example.test' } }, 'body.assigneeUserId'],
    [
      'a step number twice',
      {
        stepResults: {
          results: [
            { order: 1, status: Verdict.PASSED },
            { order: 1, status: Verdict.PASSED },
          ],
        },
      },
      'body.stepResults.1.order',
    ],
    ['a step number below 1', { stepResults: { results: [{ order: 0, status: Verdict.PASSED }] } }, 'body.stepResults.0.order'],
    ['an UNSPECIFIED step status', { stepResults: { results: [{ order: 1, status: Verdict.UNSPECIFIED }] } }, 'body.stepResults.0.status'],
    ['a linked issue without displayId or url', { linkedIssues: { issues: [{}] } }, 'body.linkedIssues.0'],
  ])('refuses %s (VALIDATION_ERROR) and changes nothing', async (_label, over, path) => {
    const { projectId } = await project();
    const run = await createRun(projectId);
    expect(await failure(s.client.updateRunCase({ projectId, runId: run.id, caseRef: 'TC-1', ...over }, owner))).toMatchObject({
      reason: 'VALIDATION_ERROR',
      paths: [path],
    });
    expect((await s.client.getManualRun({ projectId, runId: run.id }, owner)).run!.stats!.untested).toBe(4);
  });

  it('answers NOT_FOUND for a case the run does not hold, CONFLICT once the run is closed', async () => {
    const { projectId, suites } = await project();
    const run = await createRun(projectId, { selectionMode: SelectionMode.SELECTED, suiteIds: [suites.b] });
    expect(
      (await failure(s.client.updateRunCase({ projectId, runId: run.id, caseRef: 'TC-1', result: Verdict.PASSED }, owner))).reason,
    ).toBe('NOT_FOUND');
    await s.client.updateManualRun({ projectId, runId: run.id, status: RecordStatus.CLOSED }, owner);
    expect(
      (await failure(s.client.updateRunCase({ projectId, runId: run.id, caseRef: 'TC-4', result: Verdict.PASSED }, owner))).reason,
    ).toBe('CONFLICT');
  });

  it('lists the run’s cases in run order, filtered by verdict and by assignee (`none` for unassigned), paged', async () => {
    const { projectId } = await project();
    const run = await createRun(projectId);
    await s.client.updateRunCase(
      { projectId, runId: run.id, caseRef: 'TC-2', result: Verdict.RETEST, assigneeUserId: { value: ALICE.id } },
      owner,
    );
    expect(await runCases(projectId, run.id, { result: Verdict.RETEST })).toEqual(['TC-2']);
    expect(await runCases(projectId, run.id, { assignee: ALICE.email.toUpperCase() })).toEqual(['TC-2']);
    expect(await runCases(projectId, run.id, { assignee: 'NONE' })).toEqual(['TC-1', 'TC-3', 'TC-4']);
    const page = await s.client.listRunCases({ projectId, runId: run.id, page: { page: 2, limit: 3 } }, owner);
    expect(page.page).toMatchObject({ page: 2, limit: 3, total: 4n });
    expect(page.runCases.map((c) => c.testCase!.caseId)).toEqual(['TC-4']);
    expect((await failure(s.client.listRunCases({ projectId, runId: run.id, result: Verdict.UNSPECIFIED }, owner))).paths).toEqual([
      'query.result',
    ]);
  });

  it.each(READ_ONLY)('refuses writes by %s (FORBIDDEN) but lets it read', async (_label, caller) => {
    const { projectId } = await project();
    const run = await createRun(projectId);
    expect((await failure(s.client.createManualRun({ projectId, name: 'x' }, caller))).reason).toBe('FORBIDDEN');
    expect((await failure(s.client.updateManualRun({ projectId, runId: run.id, name: 'x' }, caller))).reason).toBe('FORBIDDEN');
    expect(
      (await failure(s.client.updateRunCase({ projectId, runId: run.id, caseRef: 'TC-1', result: Verdict.PASSED }, caller))).reason,
    ).toBe('FORBIDDEN');
    expect((await s.client.listRunCases({ projectId, runId: run.id }, caller)).runCases).toHaveLength(4);
  });
});
