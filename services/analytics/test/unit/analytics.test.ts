/**
 * The `analytics` family's handlers (handlers/analytics.ts: GetSummary, GetTestPerformance) through the in-memory
 * transport on a schema of their own, over runs folded into the read model: the window asked for, the figures
 * of the window (and only of it), the `days` rule, the empty project, and answers cached per read-model version.
 */
import { Code } from '@connectrpc/connect';
import { MAX_PERFORMANCE_ROWS } from '@assay/contracts/analytics/values';
import { performanceJsonFromColumns, summaryToJson } from '@assay/contracts/analytics/analytics';
import { analyticsUnit, daysAgo, refused, type AnalyticsUnit } from './fixture';

let u: AnalyticsUnit;
const P = 'p'.repeat(24);

beforeAll(async () => {
  u = await analyticsUnit('analytics_summary');
  await u.fold(
    P,
    {
      id: 'run-a',
      at: daysAgo(0),
      tags: ['nightly'],
      results: [
        { test: 't1', ms: 100, tags: ['@smoke'] },
        { test: 't2', outcome: 'unexpected', ms: 3000 },
        { test: 't3', outcome: 'flaky', ms: 200 },
        { test: 't4', outcome: 'skipped' },
      ],
    },
    {
      id: 'run-b',
      at: daysAgo(3),
      branch: 'feature',
      environment: 'production',
      results: [
        { test: 't1', ms: 120 },
        { test: 't2', ms: 2500 },
      ],
    },
    { id: 'run-c', at: daysAgo(20), results: [{ test: 't1', outcome: 'unexpected', ms: 90 }] },
  );
});
afterAll(() => u.db.drop());

describe('analytics handlers: summary', () => {
  it('answers the 7-day window: run counts, outcome stats, durations, top lists, breakdowns, one trend entry per day', async () => {
    const s = await u.client.getSummary({ projectId: P, days: 7 });
    expect(s.window).toMatchObject({ days: 7, fromDate: '2026-03-04', untilDate: '2026-03-10' });
    expect(s.runs).toMatchObject({ total: 2n, passed: 1n, failed: 1n, interrupted: 0n, incomplete: 0n });
    expect(s.stats).toMatchObject({ executions: 6n, passed: 3n, failed: 1n, flaky: 1n, skipped: 1n, passRate: 60, failureRate: 20 });
    expect(s.durations).toMatchObject({ minMs: 100n, maxMs: 3000n });
    expect(s.topFailing.map((t) => t.title)).toEqual(['suite › t2']);
    expect(s.topFlaky.map((t) => t.title)).toEqual(['suite › t3']);
    expect(s.slowest[0]!.title).toBe('suite › t2');
    // Most runs first, then most results.
    expect(s.byBranch.map((b) => [b.name, b.runs, b.stats!.executions])).toEqual([
      ['main', 1n, 4n],
      ['feature', 1n, 2n],
    ]);
    expect(s.byTag.map((b) => b.name).sort()).toEqual(['@smoke', 'nightly']);
    expect(s.trend).toHaveLength(7);
    expect(s.trend.at(-1)).toMatchObject({ date: '2026-03-10', runs: 1n });
    expect(s.trend.at(-4)).toMatchObject({ date: '2026-03-07', runs: 1n });
  });

  it('counts a run in the window of its start day only: 30 days (the default for 0) take the older run in', async () => {
    const thirty = await u.client.getSummary({ projectId: P, days: 30 });
    expect(thirty.runs!.total).toBe(3n);
    expect(thirty.stats!.executions).toBe(7n);
    expect(await u.client.getSummary({ projectId: P, days: 0 })).toEqual(thirty);
  });

  it.each([1, 14, 60, 91])('refuses days=%i (the gateway snaps to 7, 30 or 90) at query.days', async (days) => {
    const e = await refused(u.client.getSummary({ projectId: P, days }));
    expect([e.reason, e.details?.map((d) => d.path)]).toEqual(['VALIDATION_ERROR', ['query.days']]);
  });

  it('a project with nothing folded answers zeros and a full trend', async () => {
    const s = await u.client.getSummary({ projectId: 'e'.repeat(24), days: 90 });
    expect(s.runs!.total).toBe(0n);
    expect(s.stats).toMatchObject({ executions: 0n, passRate: 0 });
    expect(s.trend).toHaveLength(90);
    expect(s.topFailing).toEqual([]);
  });

  it('answers the public summary with `json`: what the gateway made of the message, byte for byte (empty project too)', async () => {
    for (const [projectId, days] of [
      [P, 7],
      [P, 30],
      ['e'.repeat(24), 90],
    ] as const) {
      const message = await u.client.getSummary({ projectId, days });
      const answer = await u.client.getSummary({ projectId, days, json: true });
      expect([answer.window, answer.runs, answer.trend]).toEqual([undefined, undefined, []]);
      expect(Buffer.from(answer.summaryJson).toString('utf8')).toBe(JSON.stringify(summaryToJson(message, days)));
    }
  });

  it('caches an answer per read-model version: a hit until the next fold changes it', async () => {
    const first = await u.client.getSummary({ projectId: P, days: 90 });
    const hits = u.w.cache.hits;
    expect(await u.client.getSummary({ projectId: P, days: 90 })).toEqual(first);
    expect(u.w.cache.hits).toBe(hits + 1);
    await u.fold(P, { id: 'run-late', at: daysAgo(40), results: [{ test: 't9', ms: 50 }] });
    const after = await u.client.getSummary({ projectId: P, days: 90 });
    expect(after.runs!.total).toBe(first.runs!.total + 1n);
  });
});

describe('analytics handlers: performance', () => {
  it('lists every test that ran, slowest p95 first; the columnar form has the same rows in the same order', async () => {
    const rows = await u.client.getTestPerformance({ projectId: P, days: 7 });
    expect(rows.tests.map((t) => t.title)).toEqual(['suite › t2', 'suite › t3', 'suite › t1']);
    expect(rows.columns).toBeUndefined();
    const cols = await u.client.getTestPerformance({ projectId: P, days: 7, columnar: true });
    expect(cols.tests).toEqual([]);
    expect(cols.columns!.testId).toEqual(rows.tests.map((t) => t.testId));
    expect(cols.columns!.executions).toEqual(rows.tests.map((t) => Number(t.stats!.executions)));
    expect(cols.columns!.titlePathLengths).toEqual([2, 2, 2]);
  });

  it('answers the public rows with `json`: what the gateway made of the columns, byte for byte (empty project too)', async () => {
    for (const projectId of [P, 'e'.repeat(24)]) {
      const cols = await u.client.getTestPerformance({ projectId, days: 7, columnar: true });
      const answer = await u.client.getTestPerformance({ projectId, days: 7, columnar: true, json: true });
      expect([answer.window, answer.columns, answer.tests]).toEqual([undefined, undefined, []]);
      expect(Buffer.from(answer.testsJson).toString('utf8')).toBe(JSON.stringify(performanceJsonFromColumns(cols.columns)));
    }
    expect(
      JSON.parse(Buffer.from((await u.client.getTestPerformance({ projectId: P, days: 7, json: true })).testsJson).toString()),
    ).toHaveLength(3);
  });

  it(`answers at most ${MAX_PERFORMANCE_ROWS} rows, the slowest`, async () => {
    const Q = 'q'.repeat(24);
    const results = Array.from({ length: MAX_PERFORMANCE_ROWS + 1 }, (_, i) => ({ test: `bulk ${i}`, ms: i === 0 ? 1 : 1000 + i }));
    await u.fold(Q, { id: 'run-bulk', at: daysAgo(0), results });
    const cols = await u.client.getTestPerformance({ projectId: Q, days: 7, columnar: true });
    expect(cols.columns!.testId).toHaveLength(MAX_PERFORMANCE_ROWS);
    // The fastest test (1 ms; the others take a second or more) is the one left out.
    const rows = await u.client.getTestPerformance({ projectId: Q, days: 7 });
    expect(rows.tests.map((t) => t.title)).not.toContain('suite › bulk 0');
  });

  it('empty for a project with nothing folded; refuses a window it does not keep', async () => {
    expect((await u.client.getTestPerformance({ projectId: 'e'.repeat(24), days: 30, columnar: true })).columns!.testId).toEqual([]);
    await expect(u.client.getTestPerformance({ projectId: P, days: 2 })).rejects.toMatchObject({ code: Code.InvalidArgument });
  });
});
