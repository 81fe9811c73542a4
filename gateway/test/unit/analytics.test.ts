/**
 * The `analytics` route family (GET /analytics/summary, GET /analytics/test-cases/performance) over `app.inject`
 * with an in-memory analytics service: the `days` rule of spec §4.1 (what the service is asked), the caller
 * forwarded, the contract's JSON of the answers, and what the gateway refuses before any call.
 */
import { create } from '@bufbuild/protobuf';
import { AppError } from '@assay/errors';
import { GetSummaryResponseSchema, TestColumnsSchema } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { performanceJsonFromColumns, summaryToJson } from '@assay/contracts/analytics/analytics';
import { AT, day, durations, stats, testJson, testRow, window } from './analytics-rows';
import { gatewayHarness, type Harness } from './harness';

let h: Harness;
/** The analytics service answers as one from before GetSummary's `json` field (it ignores it). */
let olderService = false;
beforeAll(async () => {
  h = await gatewayHarness({
    analytics: {
      async getSummary(req) {
        const summary = {
          window: window(req.days),
          runs: { total: 5n, passed: 3n, failed: 1n, interrupted: 1n, incomplete: 0n, running: 2n },
          stats,
          durations,
          topFailing: [testRow()],
          topFlaky: [],
          slowest: [testRow({ testId: 't2' })],
          byTag: [{ name: '@smoke', runs: 4n, stats }],
          byEnvironment: [{ name: '', runs: 5n, stats }],
          byBranch: [],
          trend: [day('2026-03-09'), day('2026-03-10')],
        };
        // Asked for JSON, the service renders the public summary itself (held equal to this there).
        if (req.json && !olderService)
          return { summaryJson: Buffer.from(JSON.stringify(summaryToJson(create(GetSummaryResponseSchema, summary), req.days))) };
        return summary;
      },
      async getTestPerformance(req) {
        const answer = {
          window: window(req.days),
          columns: {
            testId: ['t1', 't2'],
            title: ['a', 'b'],
            file: ['a.spec.ts', 'b.spec.ts'],
            projectName: ['chromium', ''],
            titlePathLengths: [1, 1],
            titleParts: ['a', 'b'],
            tagCounts: [0, 0],
            tags: [],
            executions: [4, 1],
            passed: [3, 0],
            failed: [1, 0],
            flaky: [0, 0],
            skipped: [0, 1],
            passRate: [75, 0],
            failureRate: [25, 0],
            flakyRate: [0, 0],
            avgDurationMs: [100.5, 0],
            p50Ms: [90, 0],
            p90Ms: [120, 0],
            p95Ms: [130, 0],
            p99Ms: [140, 0],
            minMs: [80, 0],
            maxMs: [150, 0],
            lastRunAtMs: [Date.parse(AT), 0],
            lastFailedAtMs: [0, 0],
            lastFlakyAtMs: [0, 0],
          },
        };
        // Asked for JSON, the service renders the public rows itself (held equal to this there).
        if (req.json && !olderService)
          return {
            testsJson: Buffer.from(JSON.stringify(performanceJsonFromColumns(create(TestColumnsSchema, answer.columns)))),
          };
        return answer;
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

const P = () => `/api/v1/public/${h.projectId}`;

describe('analytics routes', () => {
  it.each([
    ['', 30],
    ['?days=7', 7],
    ['?days=60', 90],
    ['?days=18', 7],
    ['?days=19', 30],
    ['?days=abc', 30],
    ['?days=0', 30],
    ['?days=-7', 30],
    ['?days=1.5', 30],
    ['?days=7&days=90', 30],
  ])('summary%s: the service is asked for the snapped window %i', async (query, days) => {
    const res = await h.request({ method: 'GET', url: `${P()}/analytics/summary${query}` });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([
      { method: 'getSummary', request: expect.objectContaining({ projectId: h.projectId, days }), principal: h.caller('owner').principal },
    ]);
    expect(res.json().data.days).toBe(days);
  });

  it("summary: the service's JSON is passed on as it is, byte for byte what an older service's message gives", async () => {
    const current = await h.request({ method: 'GET', url: `${P()}/analytics/summary?days=7` });
    expect(h.calls[0]!.request).toMatchObject({ json: true });
    olderService = true;
    try {
      const older = await h.request({ method: 'GET', url: `${P()}/analytics/summary?days=7` });
      expect([current.statusCode, older.statusCode]).toEqual([200, 200]);
      expect(current.headers['content-type']).toBe(older.headers['content-type']);
      expect(current.body).toBe(older.body);
      expect(current.json()).toMatchObject({ success: true, data: { days: 7, totals: { runs: 5 } } });
    } finally {
      olderService = false;
    }
  });

  it('summary: the answer in the contract JSON (totals, rates, percentiles, tests, breakdowns, trend)', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/analytics/summary?days=30&unknown=1` });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      days: 30,
      from: '2026-02-09',
      until: '2026-03-10',
      totals: { runs: 5, executions: 12, passed: 8, failed: 2, flaky: 1, skipped: 1 },
      runsByStatus: { total: 5, passed: 3, failed: 1, interrupted: 1, incomplete: 0 },
      passRate: 72.73,
      failureRate: 18.18,
      flakyRate: 9.09,
      avgDuration: 1234.5,
      durationPercentiles: { p50: 900, p90: 2100, p95: 2500, p99: 3000, min: 12, max: 3100 },
      topFailing: [testJson],
      topFlaky: [],
      slowest: [{ ...testJson, testId: 't2' }],
      byTag: [expect.objectContaining({ name: '@smoke', runs: 4, executions: 12, passRate: 72.73 })],
      byEnvironment: [expect.objectContaining({ name: '', runs: 5 })],
      byBranch: [],
      trend: [
        expect.objectContaining({ date: '2026-03-09', runs: 3, failed: 2 }),
        expect.objectContaining({ date: '2026-03-10', runs: 3 }),
      ],
    });
  });

  it("performance: the service's JSON is passed on as it is, byte for byte what an older service's columns give", async () => {
    const current = await h.request({ method: 'GET', url: `${P()}/analytics/test-cases/performance?days=7` });
    expect(h.calls[0]!.request).toMatchObject({ json: true, columnar: true });
    olderService = true;
    try {
      const older = await h.request({ method: 'GET', url: `${P()}/analytics/test-cases/performance?days=7` });
      expect([current.statusCode, older.statusCode]).toEqual([200, 200]);
      expect(current.headers['content-type']).toBe(older.headers['content-type']);
      expect(current.body).toBe(older.body);
      expect(current.json().data).toHaveLength(2);
    } finally {
      olderService = false;
    }
  });

  it('performance: asks for the columnar form and answers one row per test (no last run → null)', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/analytics/test-cases/performance?days=7` });
    expect(res.statusCode).toBe(200);
    expect(h.calls[0]!.request).toMatchObject({ projectId: h.projectId, days: 7, columnar: true });
    const rows = res.json().data;
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({
      testId: 't1',
      title: 'a',
      file: 'a.spec.ts',
      projectName: 'chromium',
      executions: 4,
      passed: 3,
      failed: 1,
      flaky: 0,
      skipped: 0,
      passRate: 75,
      failureRate: 25,
      flakyRate: 0,
      avgDuration: 100.5,
      p50Duration: 90,
      p90Duration: 120,
      p95Duration: 130,
      p99Duration: 140,
      minDuration: 80,
      maxDuration: 150,
      lastRunAt: AT,
    });
    expect(rows[1]).toMatchObject({ testId: 't2', skipped: 1, lastRunAt: null });
  });

  it('is read access: viewers and project api keys read; no token is 401, another project 404, before any call', async () => {
    for (const as of ['viewer', 'api_key'] as const)
      expect((await h.request({ as, method: 'GET', url: `${P()}/analytics/summary` })).statusCode).toBe(200);
    h.calls.length = 0;
    expect((await h.app.inject({ method: 'GET', url: `${P()}/analytics/summary` })).statusCode).toBe(401);
    expect((await h.request({ method: 'GET', url: `/api/v1/public/${'9'.repeat(24)}/analytics/test-cases/performance` })).statusCode).toBe(
      404,
    );
    expect(h.calls).toEqual([]);
  });

  it('a service failure becomes its envelope with the status of the error table', async () => {
    const failing = await gatewayHarness({
      analytics: {
        async getSummary() {
          throw new AppError('SERVICE_UNAVAILABLE', 'read model busy');
        },
      },
    });
    try {
      const res = await failing.request({ method: 'GET', url: `/api/v1/public/${failing.projectId}/analytics/summary` });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    } finally {
      await failing.close();
    }
  });
});
