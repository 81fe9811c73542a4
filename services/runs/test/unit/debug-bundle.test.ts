/**
 * The `debug-bundle` family's handler (handlers/debug-bundle.ts): the three scopes (the deepest id wins), the
 * failing tests deduplicated over browser projects, the test's failure window on its branch, the truncation of
 * long error texts, the Markdown form, and what it refuses.
 */
import { BundleFormat, RunSection } from '@assay/proto/assay/runs/v1/runs_pb';
import { documentOf, type RunDetailSectionsJson, type TestCaseJson } from '@assay/contracts/runs/test-runs';
import type { RunBundleJson, SuiteBundleJson, TestBundleJson } from '@assay/contracts/runs/debug-bundle';
import { as, principal } from '@assay/testkit';
import { failure, runsUnit, streamRun, type Item, type RunsUnit } from './support';

let u: RunsUnit;
const member = as(principal('member'));
const P = '1'.repeat(24);
const LONG = `expect(received).toBe(expected) ${'x'.repeat(500)}`;

const failingRun: Item[] = [
  { titlePath: ['pay'], projectName: 'chromium', status: 'failed', errors: [{ message: LONG }], steps: [{ title: 'open', duration: 3 }] },
  { titlePath: ['pay'], projectName: 'firefox', status: 'failed', errors: [{ message: LONG }] },
  { titlePath: ['pay'], file: 'b.spec.ts', status: 'failed', retry: 0, errors: [{ message: 'once' }] },
  { titlePath: ['pay'], file: 'b.spec.ts', status: 'passed', retry: 1 },
  { titlePath: ['ok'], status: 'passed' },
];

let run: { runId: string };
let payCase: string;
let suiteId: string;

beforeAll(async () => {
  u = await runsUnit('runs_debug_bundle');
  // On main: `pay` passed in run 1, failed in runs 2 and 3 (the bundle's run).
  await streamRun(u, P, [{ titlePath: ['pay'], projectName: 'chromium', status: 'passed' }], {
    startTime: new Date('2026-03-01T00:00:00Z'),
  });
  await streamRun(u, P, [{ titlePath: ['pay'], projectName: 'chromium', status: 'failed', errors: [{ message: 'x' }] }], {
    startTime: new Date('2026-03-02T00:00:00Z'),
  });
  run = await streamRun(
    u,
    P,
    [
      ...failingRun.slice(0, 1),
      { ...failingRun[0]!, retry: 1, attachments: [{ name: 'trace', contentType: 'application/zip', path: 'trace.zip' }] },
      ...failingRun.slice(1),
    ],
    { startTime: new Date('2026-03-03T00:00:00Z') },
  );
  const cases = (await u.runs.listRunTestCases({ projectId: P, runId: run.runId }, member)).testCases.map(documentOf<TestCaseJson>);
  payCase = cases.find((c) => c.file === 'a.spec.ts' && c.projectName === 'chromium')!.id;
  const detail = documentOf<RunDetailSectionsJson>(
    (await u.runs.getRun({ projectId: P, runId: run.runId, include: [RunSection.SPECS] }, member)).detail,
  );
  suiteId = detail.specs!.find((s) => s.file === 'b.spec.ts')!.id;
});
afterAll(() => u.db.drop());

describe('debug-bundle handler', () => {
  it('run scope: failing suites, failing tests once per file and title with the projects they failed in', async () => {
    const res = await u.runs.getDebugBundle({ projectId: P, runId: run.runId, maxLength: 100 }, member);
    expect(res.markdown).toBe('');
    const b = documentOf<RunBundleJson>(res.bundle);
    expect(b.scope).toBe('run');
    expect(b.run).toMatchObject({ id: run.runId, counter: 3, status: 'failed' });
    expect(b.failingSuites.map((s) => [s.file, s.failed, s.flaky])).toEqual([
      ['a.spec.ts', 2, 0],
      ['b.spec.ts', 0, 1],
    ]);
    expect(b.failingTests).toHaveLength(1);
    expect(b.failingTests[0]).toMatchObject({ fullTitle: 'pay', occurrences: 2, projects: ['chromium', 'firefox'] });
    expect(b.failingTests[0]!.error!.message).toBe(`${LONG.slice(0, 100)}… [truncated ${LONG.length - 100} characters]`);
    expect(b.links).toEqual({ run: `https://ui.example.test/projects/${P}/runs/${run.runId}` });
  });

  it('suite scope: the spec file’s failing and flaky tests (latest run with the file unless a run is given)', async () => {
    for (const runId of ['', run.runId]) {
      const b = documentOf<SuiteBundleJson>((await u.runs.getDebugBundle({ projectId: P, suiteId, runId }, member)).bundle);
      expect(b).toMatchObject({ scope: 'suite', suite: { id: suiteId, file: 'b.spec.ts', total: 1 }, failingTests: [] });
      expect(b.flakyTests.map((t) => t.status)).toEqual(['flaky']);
      expect(b.links.suite).toBe(`https://ui.example.test/projects/${P}/runs/${run.runId}/specs/${suiteId}`);
    }
    expect((await failure(u.runs.getDebugBundle({ projectId: P, suiteId: 'nope' }, member))).reason).toBe('NOT_FOUND');
  });

  it('test scope (wins over the others): error, steps, attempts, failure window on the branch, trace, retry command', async () => {
    const res = await u.runs.getDebugBundle({ projectId: P, caseId: payCase, suiteId, runId: run.runId }, member);
    const b = documentOf<TestBundleJson>(res.bundle);
    expect(b.scope).toBe('test');
    expect(b.test).toMatchObject({ id: payCase, projectName: 'chromium', location: null, annotations: [] });
    // The last attempt that failed is shown; the default maxLength (4000) keeps this message whole.
    expect(b.error!.message).toBe(LONG);
    expect(b.steps).toEqual([{ title: 'open', duration: 3, steps: [] }]);
    expect(b.attempts.map((a) => [a.retry, a.status])).toEqual([
      [0, 'failed'],
      [1, 'failed'],
    ]);
    expect(b.failureWindow).toMatchObject({
      branch: 'main',
      lastPassing: { runCounter: 1, status: 'passed', commit: { hash: 'abc123' } },
      firstFailing: { runCounter: 2, status: 'failed' },
      failingRunsSince: 2,
    });
    // Not uploaded: no URL yet (tests of stored traces: test/e2e/artifacts.test.ts).
    expect(b.trace).toEqual({ name: 'trace', path: 'trace.zip', contentType: 'application/zip', retry: 1, url: null, viewerUrl: null });
    expect(b.retryCommand).toBe("npx playwright test -g 'pay' --project='chromium' -- 'a.spec.ts'");
    expect(Object.keys(b.links)).toEqual(['run', 'testCase', 'history']);
  });

  it('renders the same bundle as Markdown', async () => {
    const test = await u.runs.getDebugBundle({ projectId: P, caseId: payCase, format: BundleFormat.MD }, member);
    expect(test.markdown).toMatch(/^# Debug bundle: pay\n/);
    for (const heading of ['## Error', '## Steps', '## Attempts', '## Failure window', '## Artifacts', '## Trace', '## Retry'])
      expect(test.markdown).toContain(`\n${heading}\n`);
    expect(test.markdown).toContain('- Last passing: run #1 at 2026-03-01T00:00:00.000Z, commit abc123');
    const runMd = (await u.runs.getDebugBundle({ projectId: P, runId: run.runId, format: BundleFormat.MD }, member)).markdown;
    expect(runMd).toContain('# Debug bundle: run #3');
    expect(runMd).toContain('- a.spec.ts: 2 failed, 0 flaky');
    const suiteMd = (await u.runs.getDebugBundle({ projectId: P, suiteId, format: BundleFormat.MD }, member)).markdown;
    expect(suiteMd).toContain('# Debug bundle: b.spec.ts');
    expect(suiteMd).toMatch(/## Flaky tests\n\n- \*\*pay\*\* \(b\.spec\.ts\) — flaky/);
  });

  it('refuses an unknown format, no scope at all, and ids of nothing', async () => {
    expect(
      (await failure(u.runs.getDebugBundle({ projectId: P, runId: run.runId, format: BundleFormat.UNSPECIFIED }, member))).paths,
    ).toEqual(['query.format']);
    expect(await failure(u.runs.getDebugBundle({ projectId: P }, member))).toMatchObject({
      reason: 'VALIDATION_ERROR',
      paths: ['query.runId'],
    });
    expect((await failure(u.runs.getDebugBundle({ projectId: P, caseId: 'nope' }, member))).reason).toBe('NOT_FOUND');
    expect((await failure(u.runs.getDebugBundle({ projectId: 'f'.repeat(24), runId: run.runId }, member))).reason).toBe('NOT_FOUND');
  });

  it('keeps hostile report text inert: a file named like an option stays a file, newlines and markup stay text', async () => {
    const Q = '2'.repeat(24);
    const hostile = await streamRun(
      u,
      Q,
      [
        {
          file: '--config=evil.js',
          titlePath: ['ok\n# Injected heading\n[click](javascript:alert(1))'],
          status: 'failed',
          errors: [{ message: 'boom\n## Retry\nrm -rf /' }],
          steps: [{ title: 'step\n# Step heading', duration: 1 }],
        },
      ],
      { branch: 'main\n# Branch heading' },
    );
    const [c] = (await u.runs.listRunTestCases({ projectId: Q, runId: hostile.runId }, member)).testCases.map(documentOf<TestCaseJson>);
    const json = documentOf<TestBundleJson>((await u.runs.getDebugBundle({ projectId: Q, caseId: c!.id }, member)).bundle);
    expect(json.retryCommand).toMatch(/ -- '--config=evil\.js'$/);
    expect(json.retryCommand.split(' -- ')[0]).not.toContain('--config');
    for (const scope of [{ caseId: c!.id }, { runId: hostile.runId }]) {
      const { markdown } = await u.runs.getDebugBundle({ projectId: Q, format: BundleFormat.MD, ...scope }, member);
      // Headings outside fences (inside one, a line is code, not markup).
      let fenced = false;
      const headings = markdown.split('\n').filter((l) => {
        if (l.startsWith('```')) fenced = !fenced;
        return !fenced && l.startsWith('#');
      });
      expect(
        headings.filter(
          (h) => !/^#{1,2} (Debug bundle|Error|Steps|Attempts|Failure window|Artifacts|Trace|Links|Retry|Failing|Flaky)/.test(h),
        ),
      ).toEqual([]);
      expect(headings.filter((h) => /^#+ (Injected|Branch heading|Step heading)/.test(h))).toEqual([]);
      expect(markdown).not.toContain('[click](');
      expect(markdown).toContain('\\[click\\]\\(javascript:alert\\(1\\)\\)');
    }
  });
});
