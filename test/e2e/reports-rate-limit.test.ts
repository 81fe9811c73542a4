/**
 * The PDF limit (spec §8, CONTRACT §9) on a private gateway with the default limits and a Redis of its own:
 * 1 generation per minute per token, shared by `POST /reports` and `GET /reports/pdf`; the 429 carries
 * `Retry-After` in whole seconds and `RateLimit-Remaining: 0`; reading a report's status and downloading it
 * do not count as generations; another token has its own budget.
 */
import { startPrivateGateway, startPrivateRedis, testAdmin, type PrivateGateway, type PrivateRedis } from '@assay/testkit';

jest.setTimeout(120000);
const admin = testAdmin();
let redis: PrivateRedis;
let gateway: PrivateGateway;

beforeAll(async () => {
  redis = await startPrivateRedis();
  gateway = await startPrivateGateway({ name: 'pdf-limit', env: { REDIS_URL: redis.url } });
});

afterAll(async () => {
  await gateway?.stop();
  await redis?.remove();
});

const expectPdfLimit = (res: { status: number; headers: Headers; body: any }) => {
  expect(res.status).toBe(429);
  expect(res.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  expect(res.body.error.message).toMatch(/pdf/);
  const retryAfter = res.headers.get('retry-after')!;
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
};

describe('PDF generation limit: 1 per minute per token across both generation routes', () => {
  it('POST /reports first: the next POST and GET /reports/pdf are 429 with Retry-After; status and download are not limited', async () => {
    const t = await admin.tenant('owner');
    const api = gateway.api(t.token);
    const created = await api.post(`/${t.projectId}/reports`, { days: 1 });
    expect(created.status).toBe(202);
    expect(created.headers.get('ratelimit-limit')).toBe('1');
    expect(created.headers.get('ratelimit-remaining')).toBe('0');
    expectPdfLimit(await api.get(`/${t.projectId}/reports/pdf`));
    expectPdfLimit(await api.post(`/${t.projectId}/reports`, { days: 2 }));
    // Reads of the report are ordinary reads.
    const reportId = created.body.data.reportId;
    const status = await api.get(`/${t.projectId}/reports/${reportId}`);
    expect(status.status).toBe(200);
    expect(status.headers.get('ratelimit-limit')).toBe('100');
  });

  it('GET /reports/pdf first: the next generation by either route is 429; another token still has its own', async () => {
    const t = await admin.tenant('owner');
    const api = gateway.api(t.token);
    const pdf = await api.get(`/${t.projectId}/reports/pdf?days=1`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expectPdfLimit(await api.post(`/${t.projectId}/reports`, {}));
    expectPdfLimit(await api.get(`/${t.projectId}/reports/pdf?days=1`));

    const second = await admin.member(t.orgId, 'member', { projects: [t.projectId] });
    expect((await gateway.api(second.token).post(`/${t.projectId}/reports`, {})).status).toBe(202);
  });
});
