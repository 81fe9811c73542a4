/** The `usage` route over `app.inject`, with an in-memory runs service: the caller is forwarded; plan, period, limits and counts answer as CONTRACT §2 spells them, with the project's artifact storage. */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { gatewayHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    runs: {
      async getUsage() {
        return {
          planName: 'team',
          periodStart: timestampFromDate(new Date('2026-03-01T00:00:00Z')),
          periodEnd: timestampFromDate(new Date('2026-04-01T00:00:00Z')),
          testResultsPerMonth: 1000n,
          usedTestResults: 250n,
          usedRuns: 12n,
          remaining: 750n,
          artifactBytes: 5_000_000n,
          artifactCount: 42n,
          artifactRetentionDays: 14,
        };
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

describe('usage route', () => {
  it("answers the organization's plan, period, limits and counts", async () => {
    const res = await h.request({ as: 'viewer', method: 'GET', url: `/api/v1/public/${h.projectId}/usage` });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([
      { method: 'getUsage', request: expect.objectContaining({ projectId: h.projectId }), principal: h.caller('viewer').principal },
    ]);
    expect(res.json()).toEqual({
      success: true,
      data: {
        planName: 'team',
        periodStart: '2026-03-01T00:00:00.000Z',
        periodEnd: '2026-04-01T00:00:00.000Z',
        limits: { testResultsPerMonth: 1000 },
        used: { testResults: 250, runs: 12 },
        remaining: 750,
        artifacts: { bytes: 5_000_000, count: 42, retentionDays: 14 },
      },
    });
  });

  it('a project the token does not cover is 404 before any call', async () => {
    expect((await h.request({ method: 'GET', url: `/api/v1/public/${'9'.repeat(24)}/usage` })).statusCode).toBe(404);
    expect(h.calls).toEqual([]);
  });
});
