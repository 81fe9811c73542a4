/**
 * The `filters` route family (GET /filters and GET /filters/{kind}) over `app.inject` with an in-memory analytics
 * service: one GetFilters call per request, every list or the one asked for, no query parameters, unknown kinds
 * not routed.
 */
import { gatewayHarness, type Harness } from './harness';

const values = {
  environments: ['production', 'staging'],
  branches: ['feature/x', 'main'],
  developers: ['Ada', 'Grace'],
  tags: ['@smoke', 'nightly'],
};

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    analytics: {
      async getFilters() {
        return values;
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

const P = () => `/api/v1/public/${h.projectId}`;

describe('filters routes', () => {
  it('GET /filters answers the four lists from one call for the project, forwarding the caller', async () => {
    const res = await h.request({ as: 'api_key', method: 'GET', url: `${P()}/filters?branch=main` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: values });
    expect(h.calls).toEqual([
      { method: 'getFilters', request: expect.objectContaining({ projectId: h.projectId }), principal: h.caller('api_key').principal },
    ]);
  });

  it.each(Object.keys(values) as (keyof typeof values)[])('GET /filters/%s answers that list alone', async (kind) => {
    const res = await h.request({ method: 'GET', url: `${P()}/filters/${kind}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: values[kind] });
    expect(h.calls.map((c) => c.method)).toEqual(['getFilters']);
  });

  it('an unknown kind is not a route (404), and no service is called', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/filters/authors` });
    expect(res.statusCode).toBe(404);
    expect(h.calls).toEqual([]);
  });
});
