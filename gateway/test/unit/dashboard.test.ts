/**
 * The `dashboard` route family (GET /dashboard) over `app.inject` with an in-memory analytics service: the fixed
 * window, no query parameters reaching the service, and the contract's JSON (run counts with `running`, totals,
 * the pass-rate trend, the top lists, and the active runs as GET /test-runs lists them).
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RunStatus } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { day, stats, statsJson, testJson, testRow, window } from './analytics-rows';
import { gatewayHarness, type Harness } from './harness';

const STARTED = '2026-03-10T07:59:00.000Z';

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    analytics: {
      async getDashboard() {
        return {
          window: window(30),
          runs: { total: 4n, passed: 2n, failed: 1n, interrupted: 0n, incomplete: 1n, running: 2n },
          stats,
          trend: [day('2026-03-10')],
          topFlaky: [testRow()],
          topFailing: [],
          activeRuns: [
            {
              id: 'r'.repeat(24),
              counter: 41n,
              status: RunStatus.RUNNING,
              startTime: timestampFromDate(new Date(STARTED)),
              duration: 60000n,
              testStats: { total: 10, passed: 4 },
              git: { branch: 'main', environment: 'staging', commit: { hash: 'abc', message: 'm', author: 'Ada' } },
            },
          ],
        };
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

const url = () => `/api/v1/public/${h.projectId}/dashboard`;

describe('dashboard route', () => {
  it('asks for the project only (query parameters are stripped) and forwards the caller', async () => {
    const res = await h.request({ as: 'viewer', method: 'GET', url: `${url()}?days=7&limit=50` });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([
      { method: 'getDashboard', request: expect.objectContaining({ projectId: h.projectId }), principal: h.caller('viewer').principal },
    ]);
    expect(res.json().data.days).toBe(30);
  });

  it('answers the contract JSON: run counts with running, totals, trend, top lists, active runs', async () => {
    const d = (await h.request({ method: 'GET', url: url() })).json().data;
    expect(d).toMatchObject({
      days: 30,
      from: '2026-02-09',
      until: '2026-03-10',
      runCounts: { total: 4, passed: 2, failed: 1, interrupted: 0, incomplete: 1, running: 2 },
      totals: statsJson,
      passRateTrend: [expect.objectContaining({ date: '2026-03-10', runs: 3 })],
      topFlaky: [testJson],
      topFailing: [],
    });
    expect(d.activeRuns).toHaveLength(1);
    expect(d.activeRuns[0]).toMatchObject({
      id: 'r'.repeat(24),
      counter: 41,
      status: 'running',
      startTime: STARTED,
      endTime: null,
      duration: 60000,
      metadata: { git: { branch: 'main', environment: 'staging', commit: { hash: 'abc', author: 'Ada' } } },
    });
  });

  it('a project the token does not cover is 404, a missing token 401, before any call', async () => {
    expect((await h.request({ method: 'GET', url: `/api/v1/public/${'9'.repeat(24)}/dashboard` })).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: url() })).statusCode).toBe(401);
    expect(h.calls).toEqual([]);
  });
});
