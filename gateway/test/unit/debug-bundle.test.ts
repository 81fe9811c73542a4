/**
 * The `debug-bundle` route over `app.inject`, with an in-memory runs service: the ids, the format (proto enum,
 * json by default) and the text bound reach the service; JSON answers in the envelope, `format=md` as
 * text/markdown without it (each scope's bundle in its contract shape); bad values are refused before any call.
 */
import { BundleFormat } from '@assay/proto/assay/runs/v1/runs_pb';
import { gatewayHarness, type Harness } from './harness';

const run = {
  id: 'r'.repeat(24),
  counter: 3,
  status: 'failed',
  startTime: '2026-01-02T03:04:05.000Z',
  endTime: '2026-01-02T03:05:05.000Z',
  duration: 60000,
  testStats: { total: 1, passed: 0, failed: 1, skipped: 0, flaky: 0, timedOut: 0, totalAttempts: 1, retriedTests: 0 },
  metadata: { git: { branch: 'main', environment: 'ci', commit: { hash: 'abc', message: 'Fix', author: 'Ada' } } },
  url: 'https://ui.example.test/r',
};
const testCase = {
  id: 'c'.repeat(24),
  testId: 't'.repeat(24),
  runId: 'r'.repeat(24),
  title: 'works',
  titlePath: ['login', 'works'],
  fullTitle: 'login › works',
  file: 'a.spec.ts',
  projectName: 'chromium',
  status: 'failed',
  outcome: 'unexpected',
  duration: 30,
  attempts: 1,
  retries: 0,
  quarantined: false,
  tags: [],
  error: { message: 'boom' },
  startedAt: null,
  url: 'https://ui.example.test/c',
};
const point = {
  runId: 'r'.repeat(24),
  runCounter: 3,
  caseId: 'c'.repeat(24),
  status: 'failed',
  at: '2026-01-02T03:04:05.000Z',
  commit: { hash: 'abc', message: 'Fix', author: 'Ada' },
  url: 'https://ui.example.test/r',
};
/** A bundle of each scope, as the service builds them. */
const bundles = {
  test: {
    scope: 'test',
    run,
    test: { ...testCase, location: { file: 'a.spec.ts', line: 3, column: 5 }, annotations: [] },
    error: { message: 'boom', stack: 'Error: boom' },
    steps: [{ title: 'click', duration: 3, steps: [] }],
    attempts: [{ retry: 0, status: 'failed', duration: 30, startTime: null, error: { message: 'boom', location: null } }],
    failureWindow: { branch: 'main', lastPassing: null, firstFailing: point, failingRunsSince: 1 },
    artifacts: [],
    trace: null,
    links: { run: 'https://ui.example.test/r', testCase: 'https://ui.example.test/c', history: 'https://ui.example.test/t' },
    retryCommand: 'npx playwright test',
  },
  suite: {
    scope: 'suite',
    run,
    suite: { id: 's'.repeat(24), file: 'a.spec.ts', total: 1 },
    failingTests: [testCase],
    flakyTests: [],
    links: { run: 'https://ui.example.test/r', suite: 'https://ui.example.test/s' },
  },
  run: {
    scope: 'run',
    run,
    failingSuites: [{ id: 's'.repeat(24), file: 'a.spec.ts', failed: 1, flaky: 0 }],
    failingTests: [{ ...testCase, occurrences: 1, projects: ['chromium'] }],
    links: { run: 'https://ui.example.test/r' },
  },
};

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    runs: {
      async getDebugBundle(req) {
        return {
          bundle: req.caseId ? bundles.test : req.suiteId ? bundles.suite : bundles.run,
          markdown: req.format === BundleFormat.MD ? '# Debug bundle: run #3\n' : '',
        };
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

const P = () => `/api/v1/public/${h.projectId}`;

describe('debug-bundle route', () => {
  it('JSON (the default): ids and bound reach the service, the bundle answers in the envelope', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/debug-bundle?runId=r1&caseId=c1&maxLength=500` });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([
      {
        method: 'getDebugBundle',
        request: expect.objectContaining({
          projectId: h.projectId,
          runId: 'r1',
          suiteId: '',
          caseId: 'c1',
          format: BundleFormat.JSON,
          maxLength: 500,
        }),
        principal: h.caller('owner').principal,
      },
    ]);
    expect(res.json()).toEqual({ success: true, data: bundles.test });
    const suite = await h.request({ method: 'GET', url: `${P()}/debug-bundle?suiteId=s1` });
    expect(h.calls[1]!.request).toMatchObject({ suiteId: 's1', runId: '', maxLength: 0 });
    expect(suite.json()).toEqual({ success: true, data: bundles.suite });
    expect((await h.request({ method: 'GET', url: `${P()}/debug-bundle?runId=r1` })).json()).toEqual({ success: true, data: bundles.run });
  });

  it('format=md answers the Markdown as text/markdown, without the envelope', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/debug-bundle?runId=r1&format=md` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.body).toBe('# Debug bundle: run #3\n');
    expect(h.calls[0]!.request).toMatchObject({ format: BundleFormat.MD });
  });

  it.each([
    ['an unknown format', 'runId=r&format=html', 'query.format'],
    ['a bound under 100', 'runId=r&maxLength=99', 'query.maxLength'],
    ['a bound over 100000', 'runId=r&maxLength=100001', 'query.maxLength'],
  ])('refuses %s with 400 before any call', async (_label, query, path) => {
    const res = await h.request({ method: 'GET', url: `${P()}/debug-bundle?${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(h.calls).toEqual([]);
  });
});
