/**
 * GetReportData (handlers/report-data.ts, for the reports service) through the in-memory transport: the exact
 * window (days ending today, or from..until; never snapped; at most 90 days), the branch / environment / tags
 * filters, the top-list size, and the refusals of an impossible window.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { analyticsUnit, daysAgo, NOW, refused, type AnalyticsUnit } from './fixture';

let u: AnalyticsUnit;
const P = 'r'.repeat(24);
const ts = (d: Date) => timestampFromDate(d);

beforeAll(async () => {
  u = await analyticsUnit('analytics_report_data');
  await u.fold(
    P,
    {
      id: 'main-1',
      at: daysAgo(1),
      branch: 'main',
      environment: 'staging',
      results: [
        { test: 'a', tags: ['@smoke'] },
        { test: 'b', outcome: 'unexpected' },
      ],
    },
    { id: 'feat-1', at: daysAgo(2), branch: 'feature', environment: 'production', tags: ['nightly'], results: [{ test: 'a' }] },
    { id: 'old-1', at: daysAgo(45), branch: 'main', results: [{ test: 'c', file: 'c.spec.ts' }] },
  );
});
afterAll(() => u.db.drop());

describe('report data handler', () => {
  it('covers the `days` whole days ending today, never snapped (days = 3)', async () => {
    const d = await u.client.getReportData({ projectId: P, days: 3 });
    expect(d.window).toMatchObject({ days: 3, fromDate: '2026-03-08', untilDate: '2026-03-10' });
    expect(d.totals).toMatchObject({ runs: { total: 2n }, tests: 2n, specFiles: 1n, stats: { executions: 3n, failed: 1n } });
    expect(d.trend.map((t) => [t.date, t.runs])).toEqual([
      ['2026-03-08', 1n],
      ['2026-03-09', 1n],
      ['2026-03-10', 0n],
    ]);
    expect(d.topFailing.map((t) => t.titlePath.at(-1))).toEqual(['b']);
    expect(d.generatedAt).toEqual(ts(NOW));
    expect(d.lastFoldedAt).toBeDefined();
  });

  it('takes an exact from..until window, and 30 days when given neither', async () => {
    const d = await u.client.getReportData({ projectId: P, from: ts(daysAgo(50)), until: ts(daysAgo(40)) });
    expect(d.window).toMatchObject({ days: 11, fromDate: '2026-01-19', untilDate: '2026-01-29' });
    expect(d.totals!.runs!.total).toBe(1n);
    expect((await u.client.getReportData({ projectId: P })).window!.days).toBe(30);
  });

  it('filters by branch, environment and tags (a run tag or a test tag)', async () => {
    const figures = async (over: Record<string, unknown>) => (await u.client.getReportData({ projectId: P, days: 7, ...over })).totals!;
    expect(await figures({ branch: 'feature' })).toMatchObject({ runs: { total: 1n }, stats: { executions: 1n } });
    expect(await figures({ environment: 'staging' })).toMatchObject({ runs: { total: 1n }, stats: { executions: 2n } });
    expect(await figures({ tags: ['@smoke'] })).toMatchObject({ stats: { executions: 1n } });
    expect(await figures({ tags: ['nightly'] })).toMatchObject({ stats: { executions: 1n } });
    expect(await figures({ branch: 'nowhere' })).toMatchObject({ runs: { total: 0n }, stats: { executions: 0n } });
  });

  it('limits the top lists to topLimit', async () => {
    const d = await u.client.getReportData({ projectId: P, days: 7, topLimit: 1 });
    expect(d.slowest).toHaveLength(1);
    expect((await u.client.getReportData({ projectId: P, days: 7 })).slowest).toHaveLength(2);
  });

  it.each([
    ['days over 90', { days: 91 }, 'days'],
    ['negative days', { days: -1 }, 'days'],
    ['from without until', { from: ts(daysAgo(3)) }, 'from'],
    ['from after until', { from: ts(daysAgo(1)), until: ts(daysAgo(3)) }, 'from'],
    ['a window over 90 days', { from: ts(daysAgo(90)), until: ts(daysAgo(0)) }, 'until'],
  ])('refuses %s at %s', async (_label, over, path) => {
    const e = await refused(u.client.getReportData({ projectId: P, ...over }));
    expect([e.reason, e.details?.map((x) => x.path)]).toEqual(['VALIDATION_ERROR', [path]]);
  });

  it('a project with nothing folded answers zeros over the window', async () => {
    const d = await u.client.getReportData({ projectId: 'e'.repeat(24), days: 5 });
    expect(d.totals!.runs!.total).toBe(0n);
    expect(d.trend).toHaveLength(5);
    expect(d.lastFoldedAt).toBeUndefined();
  });
});
