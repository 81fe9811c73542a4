/**
 * The `test-cases` route family over `app.inject`, with an in-memory runs service: the history's offset paging
 * (defaults, the offset pagination object, the limits refused before any call) and one result with or without
 * its history (`include` = history or all), each answered in the contract's shape (fields it lacks dropped).
 */
import { AppError } from '@assay/errors';
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

const historyItem = (i: number) => ({
  caseId: `c${i}`,
  testId: 't'.repeat(24),
  runId: `r${i}`,
  runCounter: 3 - i,
  title: 'login › works',
  file: 'a.spec.ts',
  projectName: 'chromium',
  status: 'passed',
  outcome: 'expected',
  duration: 12,
  retries: 0,
  branch: 'main',
  environment: 'ci',
  commit: { hash: 'abc', message: 'Fix', author: 'Ada' },
  startedAt: '2026-01-01T00:00:00.000Z',
  error: null,
  url: `https://ui.example.test/c${i}`,
});

const error = { message: 'boom', stack: 'Error: boom\n    at a.spec.ts:3:5', location: { file: 'a.spec.ts', line: 3, column: 5 } };
const step = { title: 'click', category: 'pw:api', duration: 3, steps: [{ title: 'wait', duration: 1, error, steps: [] }] };

const detail = (history: boolean) => ({
  id: 'c'.repeat(24),
  metadata: {
    run,
    test: {
      id: 't'.repeat(24),
      title: 'works',
      titlePath: ['login', 'works'],
      fullTitle: 'login › works',
      file: 'a.spec.ts',
      specId: 's'.repeat(24),
      projectName: 'chromium',
      location: { file: 'a.spec.ts', line: 2, column: 1 },
      tags: ['@smoke'],
      annotations: [{ type: 'issue', description: 'TC-9' }],
    },
  },
  overview: {
    status: 'failed',
    outcome: 'unexpected',
    expectedStatus: 'passed',
    quarantined: false,
    duration: 12,
    retries: 0,
    error,
    attempts: [
      {
        retry: 0,
        status: 'failed',
        duration: 12,
        startTime: null,
        workerIndex: 0,
        error,
        errors: [error],
        steps: [step],
        stdout: ['hello'],
        stderr: [],
        attachments: [{ name: 'screenshot', contentType: 'image/png', path: 's.png' }],
      },
    ],
    steps: [step],
    attachments: [{ name: 'screenshot', contentType: 'image/png', path: 's.png', retry: 0 }],
  },
  url: 'https://ui.example.test/c',
  ...(history
    ? {
        history: {
          summary: {
            totalRuns: 2,
            passed: 1,
            failed: 1,
            flaky: 0,
            skipped: 0,
            interrupted: 0,
            stabilityScore: 50,
            lastPassed: '2026-01-01T00:00:00.000Z',
            lastFailed: null,
            lastFlaky: null,
          },
          recent: [historyItem(0)],
        },
      }
    : {}),
});

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    runs: {
      async getTestCaseHistory(req) {
        return {
          items: Array.from({ length: Math.min(req.limit, 3) }, (_, i) => ({ ...historyItem(i), internal: 'dropped' })),
          total: 13n,
        };
      },
      async getTestCase(req) {
        if (req.caseId === 'missing') throw new AppError('NOT_FOUND', 'Test case not found or not accessible');
        return { testCase: { ...detail(req.includeHistory), internal: 'dropped' } };
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

const P = () => `/api/v1/public/${h.projectId}`;

describe('test-cases routes', () => {
  it('history: filters, offset and limit reach the service (defaults 0 and 10); the page is described by offset', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/test-cases/history?testId=t1&branch=main&offset=10&limit=25` });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([
      {
        method: 'getTestCaseHistory',
        request: expect.objectContaining({ projectId: h.projectId, testId: 't1', title: '', branch: 'main', offset: 10, limit: 25 }),
        principal: h.caller('owner').principal,
      },
    ]);
    expect(res.json()).toEqual({
      success: true,
      data: [historyItem(0), historyItem(1), historyItem(2)],
      pagination: { offset: 10, limit: 25, total: 13, hasNext: false, hasMore: false },
    });
    const first = await h.request({ method: 'GET', url: `${P()}/test-cases/history?title=${encodeURIComponent('login › works')}` });
    expect(h.calls[1]!.request).toMatchObject({ testId: '', title: 'login › works', offset: 0, limit: 10 });
    expect(first.json().pagination).toEqual({ offset: 0, limit: 10, total: 13, hasNext: true, hasMore: true });
  });

  it.each([
    ['a page size outside the allowed ones', 'limit=7', 'INVALID_LIMIT'],
    ['a negative offset', 'offset=-1', 'VALIDATION_ERROR'],
    ['an offset past the bound', 'offset=100000001', 'VALIDATION_ERROR'],
  ])('history refuses %s before any call', async (_label, query, code) => {
    const res = await h.request({ method: 'GET', url: `${P()}/test-cases/history?testId=t&${query}` });
    expect([res.statusCode, res.json().error.code]).toEqual([400, code]);
    expect(h.calls).toEqual([]);
  });

  it('one result: `include=history` or `all` asks for the history; anything else is 400 before any call', async () => {
    const plain = await h.request({ method: 'GET', url: `${P()}/test-cases/${'c'.repeat(24)}` });
    expect(plain.statusCode).toBe(200);
    expect(h.calls[0]!.request).toMatchObject({ caseId: 'c'.repeat(24), includeHistory: false });
    expect(plain.json().data).toEqual(detail(false));
    for (const include of ['history', 'all']) {
      const res = await h.request({ method: 'GET', url: `${P()}/test-cases/x?include=${include}` });
      expect(h.calls.at(-1)!.request).toMatchObject({ includeHistory: true });
      expect(res.json().data.history.summary.stabilityScore).toBe(50);
    }
    const bad = await h.request({ method: 'GET', url: `${P()}/test-cases/x?include=steps` });
    expect(bad.json().error.details).toEqual([{ path: 'query.include', message: 'each value must be one of history, all' }]);
    expect(h.calls).toHaveLength(3);
    expect((await h.request({ method: 'GET', url: `${P()}/test-cases/missing` })).statusCode).toBe(404);
  });
});
