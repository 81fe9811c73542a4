/** The `action-rules` summary route over `app.inject`, with an in-memory runs service: the window (7 by default, or 30) and the JSON it answers. */
import { gatewayHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    runs: {
      async getActionRulesSummary(req) {
        return { skip: 2, quarantine: 1, tag: 3, quarantinedTests: 4, windowDays: req.windowDays };
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

const url = () => `/api/v1/public/${h.projectId}/action-rules/summary`;

describe('action-rules route', () => {
  it('asks for the window (7 by default) and answers the counts per operation', async () => {
    const res = await h.request({ method: 'GET', url: url() });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([
      {
        method: 'getActionRulesSummary',
        request: expect.objectContaining({ projectId: h.projectId, windowDays: 7 }),
        principal: h.caller('owner').principal,
      },
    ]);
    expect(res.json()).toEqual({ success: true, data: { rules: { skip: 2, quarantine: 1, tag: 3 }, quarantinedTests: 4, windowDays: 7 } });
    expect((await h.request({ as: 'api_key', method: 'GET', url: `${url()}?windowDays=30` })).json().data.windowDays).toBe(30);
  });

  it('refuses another window before any call', async () => {
    const res = await h.request({ method: 'GET', url: `${url()}?windowDays=14` });
    expect([res.statusCode, res.json().error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(h.calls).toEqual([]);
  });
});
