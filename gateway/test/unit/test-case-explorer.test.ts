/**
 * The `test-case-explorer` route family (GET /test-case-explorer) over `app.inject` with an in-memory analytics
 * service: the JSON spellings of status, sortBy and order become the proto enums (unset stays unset), the
 * explorer's page sizes, and the AnalyticsTest rows with the shared pagination.
 */
import { ExplorerSortBy, ExplorerStatus, SortOrder } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { testJson, testRow, window } from './analytics-rows';
import { gatewayHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    analytics: {
      async listExplorerTests(req) {
        return {
          window: window(req.days),
          tests: [testRow()],
          page: { page: req.page?.page ?? 1, limit: req.page?.limit ?? 10, total: 1n },
          slowThresholdMs: 1000n,
        };
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

const url = (q = '') => `/api/v1/public/${h.projectId}/test-case-explorer${q}`;

describe('test-case-explorer route', () => {
  it.each([
    ['?status=flaky&sortBy=flaky_rate&order=asc', ExplorerStatus.FLAKY, ExplorerSortBy.FLAKY_RATE, SortOrder.ASC],
    ['?status=failing&sortBy=failure_rate&order=desc', ExplorerStatus.FAILING, ExplorerSortBy.FAILURE_RATE, SortOrder.DESC],
    ['?status=stable&sortBy=p95_duration', ExplorerStatus.STABLE, ExplorerSortBy.P95_DURATION, undefined],
    ['?status=slow&sortBy=executions', ExplorerStatus.SLOW, ExplorerSortBy.EXECUTIONS, undefined],
    ['', undefined, undefined, undefined],
  ])('%s reaches the service as proto enums (unset stays unset)', async (q, status, sortBy, order) => {
    const res = await h.request({ method: 'GET', url: url(q) });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toHaveLength(1);
    const req = h.calls[0]!.request as { status?: number; sortBy?: number; order?: number };
    expect([req.status, req.sortBy, req.order]).toEqual([status, sortBy, order]);
  });

  it('asks for the snapped window and the page; answers AnalyticsTest rows with the shared pagination', async () => {
    const res = await h.request({ as: 'viewer', method: 'GET', url: url('?days=2&page=3&limit=50') });
    expect(h.calls).toEqual([
      {
        method: 'listExplorerTests',
        request: expect.objectContaining({ projectId: h.projectId, days: 7, page: expect.objectContaining({ page: 3, limit: 50 }) }),
        principal: h.caller('viewer').principal,
      },
    ]);
    expect(res.json()).toEqual({
      success: true,
      data: [testJson],
      pagination: { page: 3, limit: 50, total: 1, hasNext: false, hasPrev: true, hasMore: false },
    });
  });

  it.each([
    ['?status=broken', 'VALIDATION_ERROR'],
    ['?sortBy=name', 'VALIDATION_ERROR'],
    ['?order=up', 'VALIDATION_ERROR'],
    ['?limit=100', 'INVALID_LIMIT'],
    ['?limit=20', 'INVALID_LIMIT'],
  ])('%s is 400 %s before any call', async (q, code) => {
    const res = await h.request({ method: 'GET', url: url(q) });
    expect([res.statusCode, res.json().error.code]).toEqual([400, code]);
    expect(h.calls).toEqual([]);
  });
});
