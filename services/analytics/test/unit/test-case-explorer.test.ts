/**
 * The `test-case-explorer` family's handler (handlers/test-case-explorer.ts: ListExplorerTests) through the
 * in-memory transport: each status filter of the contract, each sort key and order (ties by title), the slow
 * threshold, the kit's paging, and the refusal of unspecified or unknown enum values at their query paths.
 */
import { ExplorerSortBy, ExplorerStatus, SortOrder } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { analyticsUnit, daysAgo, refused, type AnalyticsUnit } from './fixture';

let u: AnalyticsUnit;
const P = 'x'.repeat(24);

beforeAll(async () => {
  u = await analyticsUnit('analytics_explorer');
  await u.fold(
    P,
    {
      id: 'r1',
      at: daysAgo(0),
      results: [
        { test: 'fast', ms: 100 },
        { test: 'broken', outcome: 'unexpected', ms: 3000 },
        { test: 'wobbly', outcome: 'flaky', ms: 200 },
        { test: 'off', outcome: 'skipped' },
      ],
    },
    {
      id: 'r2',
      at: daysAgo(2),
      results: [
        { test: 'fast', ms: 120 },
        { test: 'broken', ms: 2500 },
        { test: 'wobbly', ms: 210 },
        { test: 'fast2', ms: 90 },
      ],
    },
  );
});
afterAll(() => u.db.drop());

const titles = async (req: Record<string, unknown>) =>
  (await u.client.listExplorerTests({ projectId: P, days: 7, ...req })).tests.map((t) => t.titlePath.at(-1));

describe('test-case-explorer handler', () => {
  it.each([
    [ExplorerStatus.FAILING, ['broken']],
    [ExplorerStatus.FLAKY, ['wobbly']],
    [ExplorerStatus.STABLE, ['fast', 'fast2']],
    [ExplorerStatus.SLOW, ['broken']],
    [undefined, ['broken', 'fast', 'wobbly', 'fast2', 'off']],
  ])('status %s filters the window (default sort: executions, descending; ties by title)', async (status, expected) => {
    expect(await titles({ status })).toEqual(expected);
  });

  it('sorts by each key, both ways', async () => {
    expect(await titles({ sortBy: ExplorerSortBy.FAILURE_RATE })).toEqual(['broken', 'fast', 'fast2', 'off', 'wobbly']);
    expect(await titles({ sortBy: ExplorerSortBy.FLAKY_RATE })).toEqual(['wobbly', 'broken', 'fast', 'fast2', 'off']);
    expect(await titles({ sortBy: ExplorerSortBy.P95_DURATION })).toEqual(['broken', 'wobbly', 'fast', 'fast2', 'off']);
    expect(await titles({ sortBy: ExplorerSortBy.P95_DURATION, order: SortOrder.ASC })).toEqual([
      'off',
      'fast2',
      'fast',
      'wobbly',
      'broken',
    ]);
    expect(await titles({ sortBy: ExplorerSortBy.EXECUTIONS, order: SortOrder.ASC })).toEqual(['fast2', 'off', 'broken', 'fast', 'wobbly']);
  });

  it('answers the slow threshold: max(ANALYTICS_SLOW_TEST_MIN_MS, factor × the project median)', async () => {
    const res = await u.client.listExplorerTests({ projectId: P, days: 7 });
    expect(res.slowThresholdMs).toBe(1000n);
    expect(res.window).toMatchObject({ days: 7, untilDate: '2026-03-10' });
  });

  it('pages with the kit: page 2 of 2 per page and the total', async () => {
    const res = await u.client.listExplorerTests({ projectId: P, days: 7, page: { page: 2, limit: 2 } });
    expect(res.tests.map((t) => t.titlePath.at(-1))).toEqual(['wobbly', 'fast2']);
    expect(res.page).toMatchObject({ page: 2, limit: 2, total: 5n });
    expect((await u.client.listExplorerTests({ projectId: P, days: 7, status: ExplorerStatus.FAILING })).page!.total).toBe(1n);
  });

  it.each([
    ['an unspecified status', { status: ExplorerStatus.UNSPECIFIED }, 'query.status', 'must be flaky, failing, stable or slow'],
    ['an unknown status', { status: 99 as ExplorerStatus }, 'query.status', 'must be flaky, failing, stable or slow'],
    [
      'an unspecified sort key',
      { sortBy: ExplorerSortBy.UNSPECIFIED },
      'query.sortBy',
      'must be flaky_rate, failure_rate, p95_duration or executions',
    ],
    ['an unspecified order', { order: SortOrder.UNSPECIFIED }, 'query.order', 'must be asc or desc'],
    ['a window it does not keep', { days: 365 }, 'query.days', 'must be 7, 30 or 90'],
  ])('refuses %s with VALIDATION_ERROR at its path', async (_label, over, path, message) => {
    const e = await refused(u.client.listExplorerTests({ projectId: P, days: 7, ...over }));
    expect([e.reason, e.details]).toEqual(['VALIDATION_ERROR', [{ path, message }]]);
  });

  it('a project with nothing folded: no tests, the minimum threshold', async () => {
    const res = await u.client.listExplorerTests({ projectId: 'e'.repeat(24), days: 30, status: ExplorerStatus.SLOW });
    expect(res).toMatchObject({ tests: [], page: { total: 0n }, slowThresholdMs: 1000n });
  });
});
