/**
 * The web app's run list (GET /api/v1/app/projects/{projectId}/test-runs/{runId}/results) over `app.inject`, with an
 * in-memory runs service: the run and the bound reach the service, rows answer compact (status as the contract
 * spells it, `quarantined` and `errorGroupId` only when set), and it is a project read like the public routes.
 */
import { TestStatus } from '@assay/proto/assay/runs/v1/runs_pb';
import { AppError } from '@assay/errors';
import { RUN_ROWS_LIMIT } from '@assay/contracts/runs/run-rows';
import { gatewayHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    runs: {
      async listRunRows(req) {
        if (req.runId === 'missing') throw new AppError('NOT_FOUND', 'Run not found or not accessible');
        return {
          total: 3,
          specs: [
            { id: 's1', file: 'a.spec.ts', total: 2, passed: 1, failed: 1, flaky: 0, skipped: 0, durationMs: 30n },
            { id: 's2', file: 'b.spec.ts', total: 1, passed: 0, failed: 0, flaky: 1, skipped: 0, durationMs: 7n },
          ],
          rows: [
            { id: 'c1', title: 'login › works', spec: 0, projectName: 'chromium', status: TestStatus.PASSED, durationMs: 10n, retries: 0 },
            {
              id: 'c2',
              title: 'login › fails',
              spec: 0,
              projectName: 'chromium',
              status: TestStatus.TIMED_OUT,
              durationMs: 20n,
              retries: 0,
              quarantined: true,
              errorGroupId: 'g1',
            },
            { id: 'c3', title: 'cart', spec: 1, projectName: '', status: TestStatus.FLAKY, durationMs: 7n, retries: 2, errorGroupId: 'g2' },
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

const url = (projectId: string, runId: string) => `/api/v1/app/projects/${projectId}/test-runs/${runId}/results`;

describe('app run rows route', () => {
  it('answers every row of the run and its spec files, compact; the service is asked for at most the bound', async () => {
    const res = await h.request({ as: 'viewer', method: 'GET', url: url(h.projectId, 'r1') });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([
      {
        method: 'listRunRows',
        request: expect.objectContaining({ projectId: h.projectId, runId: 'r1', limit: RUN_ROWS_LIMIT }),
        principal: h.caller('viewer').principal,
      },
    ]);
    expect(res.json()).toEqual({
      success: true,
      data: {
        total: 3,
        specs: [
          { id: 's1', file: 'a.spec.ts', total: 2, passed: 1, failed: 1, flaky: 0, skipped: 0, duration: 30 },
          { id: 's2', file: 'b.spec.ts', total: 1, passed: 0, failed: 0, flaky: 1, skipped: 0, duration: 7 },
        ],
        rows: [
          { id: 'c1', title: 'login › works', spec: 0, projectName: 'chromium', status: 'passed', duration: 10, retries: 0 },
          {
            id: 'c2',
            title: 'login › fails',
            spec: 0,
            projectName: 'chromium',
            status: 'timedOut',
            duration: 20,
            retries: 0,
            quarantined: true,
            errorGroupId: 'g1',
          },
          { id: 'c3', title: 'cart', spec: 1, projectName: '', status: 'flaky', duration: 7, retries: 2, errorGroupId: 'g2' },
        ],
      },
    });
  });

  it('a run the service does not find is 404; a project the caller does not cover is 404 and no caller 401, before any call', async () => {
    const missing = await h.request({ method: 'GET', url: url(h.projectId, 'missing') });
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'NOT_FOUND']);
    h.calls.length = 0;
    expect((await h.request({ method: 'GET', url: url('9'.repeat(24), 'r1') })).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: url(h.projectId, 'r1') })).statusCode).toBe(401);
    expect(h.calls).toEqual([]);
  });
});
