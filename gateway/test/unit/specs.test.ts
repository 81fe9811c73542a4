/**
 * The `specs` route family (GET /specs) over `app.inject` with an in-memory analytics service: the snapped window
 * and the page asked of the service, the shared pagination rules, and the AnalyticsSpec JSON.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AT, durations, durationsJson, stats, statsJson, window } from './analytics-rows';
import { gatewayHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    analytics: {
      async listSpecs(req) {
        return {
          window: window(req.days),
          specs: [
            { file: 'cart.spec.ts', tests: 7n, stats, durations, lastRunAt: timestampFromDate(new Date(AT)) },
            { file: 'empty.spec.ts' },
          ],
          page: { page: req.page?.page ?? 1, limit: req.page?.limit ?? 10, total: 61n },
        };
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

const url = (q = '') => `/api/v1/public/${h.projectId}/specs${q}`;

describe('specs route', () => {
  it('asks for the snapped window and the page; answers AnalyticsSpec rows with the shared pagination', async () => {
    const res = await h.request({ method: 'GET', url: url('?days=80&page=2&limit=25') });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([
      {
        method: 'listSpecs',
        request: expect.objectContaining({ projectId: h.projectId, days: 90, page: expect.objectContaining({ page: 2, limit: 25 }) }),
        principal: h.caller('owner').principal,
      },
    ]);
    const body = res.json();
    expect(body.pagination).toEqual({ page: 2, limit: 25, total: 61, hasNext: true, hasPrev: true, hasMore: true });
    expect(body.data[0]).toEqual({ file: 'cart.spec.ts', tests: 7, ...statsJson, ...durationsJson, lastRunAt: AT });
    expect(body.data[1]).toMatchObject({ file: 'empty.spec.ts', tests: 0, executions: 0, passRate: 0, lastRunAt: null });
  });

  it('defaults: 30 days, page 1, limit 10', async () => {
    const res = await h.request({ method: 'GET', url: url() });
    expect(h.calls[0]!.request).toMatchObject({ days: 30, page: { page: 1, limit: 10 } });
    expect(res.json().pagination).toMatchObject({ page: 1, limit: 10, hasPrev: false });
  });

  it.each([
    ['?limit=7', 'INVALID_LIMIT'],
    ['?limit=1000', 'INVALID_LIMIT'],
    ['?page=0', 'VALIDATION_ERROR'],
    ['?page=x', 'VALIDATION_ERROR'],
  ])('%s is 400 %s before any call', async (q, code) => {
    const res = await h.request({ method: 'GET', url: url(q) });
    expect([res.statusCode, res.json().error.code]).toEqual([400, code]);
    expect(h.calls).toEqual([]);
  });
});
