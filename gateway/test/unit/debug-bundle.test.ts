/**
 * The `debug-bundle` route over `app.inject`, with an in-memory runs service: the ids, the format (proto enum,
 * json by default) and the text bound reach the service; JSON answers in the envelope, `format=md` as
 * text/markdown without it; bad values are refused before any call.
 */
import { BundleFormat } from '@assay/proto/assay/runs/v1/runs_pb';
import { gatewayHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    runs: {
      async getDebugBundle(req) {
        return {
          bundle: { scope: req.caseId ? 'test' : 'run', run: { id: req.runId }, retryCommand: 'npx playwright test' },
          markdown: req.format === BundleFormat.MD ? '# Debug bundle: run #3\n' : '',
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

describe('debug-bundle route', () => {
  it('JSON (the default): ids and bound reach the service, the bundle answers in the envelope', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/debug-bundle?runId=r1&caseId=c1&maxLength=500` });
    expect(res.statusCode).toBe(200);
    expect(h.calls).toEqual([
      {
        method: 'getDebugBundle',
        request: expect.objectContaining({
          projectId: h.projectId,
          runId: 'r1',
          suiteId: '',
          caseId: 'c1',
          format: BundleFormat.JSON,
          maxLength: 500,
        }),
        principal: h.caller('owner').principal,
      },
    ]);
    expect(res.json()).toEqual({ success: true, data: { scope: 'test', run: { id: 'r1' }, retryCommand: 'npx playwright test' } });
    await h.request({ method: 'GET', url: `${P()}/debug-bundle?suiteId=s1` });
    expect(h.calls[1]!.request).toMatchObject({ suiteId: 's1', runId: '', maxLength: 0 });
  });

  it('format=md answers the Markdown as text/markdown, without the envelope', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/debug-bundle?runId=r1&format=md` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.body).toBe('# Debug bundle: run #3\n');
    expect(h.calls[0]!.request).toMatchObject({ format: BundleFormat.MD });
  });

  it.each([
    ['an unknown format', 'runId=r&format=html', 'query.format'],
    ['a bound under 100', 'runId=r&maxLength=99', 'query.maxLength'],
    ['a bound over 100000', 'runId=r&maxLength=100001', 'query.maxLength'],
  ])('refuses %s with 400 before any call', async (_label, query, path) => {
    const res = await h.request({ method: 'GET', url: `${P()}/debug-bundle?${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(h.calls).toEqual([]);
  });
});
