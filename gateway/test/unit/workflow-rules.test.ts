/**
 * The `workflow-rules` route over `app.inject`, with an in-memory runs service: the status filter (proto enum)
 * and the page reach the service; ActionRule answers with its operations and status spelled as the spec
 * spells them, only the match criteria that are set, and the shared pagination.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RuleOperation, RuleStatus } from '@assay/proto/assay/runs/v1/runs_pb';
import { gatewayHarness, type Harness } from './harness';

const at = timestampFromDate(new Date('2026-01-02T03:04:05.000Z'));

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    runs: {
      async listWorkflowRules() {
        return {
          rules: [
            {
              id: 'a'.repeat(24),
              name: 'Quarantine flaky checkout',
              description: '',
              operations: [RuleOperation.QUARANTINE, RuleOperation.TAG],
              titlePattern: 'checkout',
              file: '',
              matchTag: '',
              tag: '@quarantined',
              enabled: true,
              createdBy: 'admin-cli',
              createdAt: at,
              updatedAt: at,
              status: RuleStatus.ACTIVE,
            },
            {
              id: 'b'.repeat(24),
              name: 'Skip smoke',
              description: 'until Friday',
              operations: [RuleOperation.SKIP],
              titlePattern: '',
              file: 'smoke.spec.ts',
              matchTag: 'smoke',
              tag: '',
              enabled: true,
              expiresAt: at,
              createdBy: 'admin-cli',
              createdAt: at,
              updatedAt: at,
              status: RuleStatus.EXPIRED,
            },
          ],
          page: { page: 1, limit: 25, total: 2n },
        };
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

const P = () => `/api/v1/public/${h.projectId}`;

describe('workflow-rules route', () => {
  it('the status filter becomes the proto enum; rules answer as ActionRule with the shared pagination', async () => {
    const res = await h.request({ as: 'viewer', method: 'GET', url: `${P()}/workflow-rules?status=expired&limit=25` });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([
      {
        method: 'listWorkflowRules',
        request: expect.objectContaining({
          projectId: h.projectId,
          status: RuleStatus.EXPIRED,
          page: expect.objectContaining({ page: 1, limit: 25 }),
        }),
        principal: h.caller('viewer').principal,
      },
    ]);
    expect(res.json()).toEqual({
      success: true,
      data: {
        rules: [
          {
            id: 'a'.repeat(24),
            name: 'Quarantine flaky checkout',
            description: '',
            operations: ['quarantine', 'tag'],
            match: { titlePattern: 'checkout' },
            tag: '@quarantined',
            enabled: true,
            expiresAt: null,
            createdBy: 'admin-cli',
            createdAt: '2026-01-02T03:04:05.000Z',
            updatedAt: '2026-01-02T03:04:05.000Z',
            status: 'active',
          },
          {
            id: 'b'.repeat(24),
            name: 'Skip smoke',
            description: 'until Friday',
            operations: ['skip'],
            match: { file: 'smoke.spec.ts', tag: 'smoke' },
            enabled: true,
            expiresAt: '2026-01-02T03:04:05.000Z',
            createdBy: 'admin-cli',
            createdAt: '2026-01-02T03:04:05.000Z',
            updatedAt: '2026-01-02T03:04:05.000Z',
            status: 'expired',
          },
        ],
      },
      pagination: { page: 1, limit: 25, total: 2, hasNext: false, hasPrev: false, hasMore: false },
    });
    await h.request({ method: 'GET', url: `${P()}/workflow-rules` });
    expect(h.calls[1]!.request).not.toHaveProperty('status');
  });

  it('refuses an unknown status and page size before any call', async () => {
    expect((await h.request({ method: 'GET', url: `${P()}/workflow-rules?status=paused` })).json().error.code).toBe('VALIDATION_ERROR');
    expect((await h.request({ method: 'GET', url: `${P()}/workflow-rules?limit=20` })).json().error.code).toBe('INVALID_LIMIT');
    expect(h.calls).toEqual([]);
  });
});
