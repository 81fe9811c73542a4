/**
 * The `test-cases` family's handlers (handlers/test-cases.ts over store/test-cases.ts): one result in detail
 * (metadata, overview with the failing attempt's error and steps, attachments by retry, the optional history
 * summary), and a test's history by id, title and branch, paged by offset with the kit's limit clamp.
 */
import { documentOf } from '@assay/contracts/runs/test-runs';
import type { TestCaseDetailJson } from '@assay/contracts/runs/test-cases';
import { as, principal } from '@assay/testkit';
import { specIdOf } from '../../src/domain/documents';
import { failure, runsUnit, streamRun, type Item, type RunsUnit } from './support';

let u: RunsUnit;
const viewer = as(principal('viewer'));
const P = 'e'.repeat(24);

const flaky: Item[] = [
  {
    titlePath: ['checkout', 'pays'],
    projectName: 'chromium',
    status: 'failed',
    retry: 0,
    duration: 40,
    errors: [{ message: 'expect(total).toBe(10)', stack: 'at pay.spec.ts:3', location: { file: 'a.spec.ts', line: 3, column: 5 } }],
    steps: [{ title: 'click pay', duration: 5, error: { message: 'boom' } }],
    annotations: [{ type: 'issue', description: 'TC-9' }],
  },
  {
    titlePath: ['checkout', 'pays'],
    projectName: 'chromium',
    status: 'passed',
    retry: 1,
    duration: 30,
    steps: [{ title: 'click pay', duration: 4 }],
    attachments: [{ name: 'screenshot', contentType: 'image/png', path: 's.png' }],
  },
];

let caseId: string;
let testId: string;

beforeAll(async () => {
  u = await runsUnit('runs_test_cases');
  // History of `checkout › pays` on main: passed, failed, then the flaky run; one run on another branch.
  await streamRun(u, P, [{ titlePath: ['checkout', 'pays'], projectName: 'chromium', status: 'passed' }], {
    startTime: new Date('2026-02-01T00:00:00Z'),
  });
  await streamRun(u, P, [{ titlePath: ['checkout', 'pays'], projectName: 'chromium', status: 'failed', errors: [{ message: 'x' }] }], {
    startTime: new Date('2026-02-02T00:00:00Z'),
  });
  await streamRun(u, P, [{ titlePath: ['checkout', 'pays'], projectName: 'chromium', status: 'passed' }], {
    startTime: new Date('2026-02-03T00:00:00Z'),
    branch: 'feature',
  });
  const run = await streamRun(u, P, flaky, { startTime: new Date('2026-02-04T00:00:00Z') });
  const list = await u.runs.listRunTestCases({ projectId: P, runId: run.runId }, viewer);
  const c = documentOf<{ id: string; testId: string }>(list.testCases[0]);
  caseId = c.id;
  testId = c.testId;
});
afterAll(() => u.db.drop());

describe('test-cases handlers', () => {
  it('answers one result: metadata, the failing attempt’s error and steps, every attempt, attachments by retry', async () => {
    const res = await u.runs.getTestCase({ projectId: P, caseId }, viewer);
    const d = documentOf<TestCaseDetailJson & { metadata: { run: { id: string; counter: number }; test: Record<string, unknown> } }>(
      res.testCase,
    );
    expect(d.id).toBe(caseId);
    expect(d.metadata.run).toMatchObject({ counter: 4, status: 'passed' });
    expect(d.metadata.test).toMatchObject({
      id: testId,
      title: 'pays',
      fullTitle: 'checkout › pays',
      specId: specIdOf(P, 'a.spec.ts'),
      projectName: 'chromium',
      annotations: [{ type: 'issue', description: 'TC-9' }],
    });
    expect(d.overview).toMatchObject({
      status: 'flaky',
      outcome: 'flaky',
      expectedStatus: 'passed',
      quarantined: false,
      duration: 70,
      retries: 1,
      error: { message: 'expect(total).toBe(10)', stack: 'at pay.spec.ts:3', location: { file: 'a.spec.ts', line: 3, column: 5 } },
      steps: [{ title: 'click pay', duration: 5, error: { message: 'boom' }, steps: [] }],
      attachments: [{ name: 'screenshot', contentType: 'image/png', path: 's.png', retry: 1 }],
    });
    expect(d.overview.attempts.map((a) => a as { retry: number; status: string }).map((a) => [a.retry, a.status])).toEqual([
      [0, 'failed'],
      [1, 'passed'],
    ]);
    expect(d.url).toBe(`https://ui.example.test/projects/${P}/runs/${d.metadata.run.id}/test-cases/${caseId}`);
    expect(d.history).toBeUndefined();
  });

  it('adds the history summary and the recent results when asked', async () => {
    const d = documentOf<TestCaseDetailJson>((await u.runs.getTestCase({ projectId: P, caseId, includeHistory: true }, viewer)).testCase);
    expect(d.history!.summary).toEqual({
      totalRuns: 4,
      passed: 2,
      failed: 1,
      flaky: 1,
      skipped: 0,
      interrupted: 0,
      stabilityScore: 50,
      lastPassed: '2026-02-03T00:00:00.000Z',
      lastFailed: '2026-02-02T00:00:00.000Z',
      lastFlaky: '2026-02-04T00:00:00.000Z',
    });
    expect(d.history!.recent.map((h) => (h as { status: string }).status)).toEqual(['flaky', 'passed', 'failed', 'passed']);
  });

  it('refuses a result of another project', async () => {
    expect((await failure(u.runs.getTestCase({ projectId: 'f'.repeat(24), caseId }, viewer))).reason).toBe('NOT_FOUND');
  });

  it('answers a test’s history newest first, by id or title, on a branch, paged by offset', async () => {
    const byId = await u.runs.getTestCaseHistory({ projectId: P, testId, limit: 2 }, viewer);
    expect(byId.total).toBe(4n);
    const items = byId.items.map((i) => i as { status: string; branch: string; runCounter: number; commit: { hash: string } });
    expect(items.map((i) => [i.runCounter, i.status])).toEqual([
      [4, 'flaky'],
      [3, 'passed'],
    ]);
    expect(items[0]!.commit.hash).toBe('abc123');
    const next = await u.runs.getTestCaseHistory({ projectId: P, testId, offset: 2, limit: 2 }, viewer);
    expect(next.items.map((i) => (i as { runCounter: number }).runCounter)).toEqual([2, 1]);
    const byTitle = await u.runs.getTestCaseHistory({ projectId: P, title: 'checkout › pays', branch: 'feature' }, viewer);
    expect(byTitle.items.map((i) => (i as { branch: string }).branch)).toEqual(['feature']);
    expect((await u.runs.getTestCaseHistory({ projectId: P, title: 'pays' }, viewer)).total).toBe(4n);
    // The kit's clamp: at most 100 a page; 0 (unset) is the default 10.
    expect((await u.runs.getTestCaseHistory({ projectId: P, testId, limit: 1000 }, viewer)).items).toHaveLength(4);
    expect((await u.runs.getTestCaseHistory({ projectId: P, testId, limit: 0 }, viewer)).items).toHaveLength(4);
  });

  it('needs a test id or a title', async () => {
    expect(await failure(u.runs.getTestCaseHistory({ projectId: P }, viewer))).toMatchObject({
      reason: 'VALIDATION_ERROR',
      paths: ['query.testId'],
    });
  });
});
