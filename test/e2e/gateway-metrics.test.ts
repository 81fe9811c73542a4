/**
 * The public traffic is measured: the gateway's metrics port counts and times every answer by route template,
 * method and status (successes, errors before authentication, unknown paths), never by raw URL.
 */
import { testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';

let t: Tenant;
beforeAll(async () => {
  t = await testAdmin().tenant('owner');
});

async function scrape(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${testSystem().ports.gateway.metricsPort}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
}

/** The value of one series (0 when absent), matched on the given labels. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.lastIndexOf('}'));
    const have = inner.split(/,(?=\w+=")/);
    if (wanted.every((w) => have.includes(w))) return Number(line.slice(line.lastIndexOf('}') + 1).trim());
  }
  return 0;
}

describe('gateway HTTP metrics', () => {
  it('counts and times requests by route template, method and status', async () => {
    const ok = { route: '/api/v1/public/:projectId/token-info', method: 'GET', status: '200' };
    const unauthorized = { ...ok, status: '401' };
    const unmatched = { route: 'unmatched', method: 'GET', status: '404' };
    const before = await scrape();

    const api = testApi(t.token);
    expect((await api.get(`/${t.projectId}/token-info`)).status).toBe(200);
    expect((await api.get(`/${t.projectId}/token-info`)).status).toBe(200);
    expect((await testApi('svc_pat_not-a-token').get(`/${t.projectId}/token-info`)).status).toBe(401);
    expect((await api.get(`/api/v1/public/no-such-family/${Date.now()}`)).status).toBe(404);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('http_server_requests_total', ok)).toBe(2);
    expect(delta('http_server_requests_total', unauthorized)).toBe(1);
    expect(delta('http_server_requests_total', unmatched)).toBe(1);
    expect(delta('http_server_request_duration_seconds_count', ok)).toBe(2);
    expect(delta('http_server_request_duration_seconds_bucket', { ...ok, le: '+Inf' })).toBe(2);
    expect(sample(after, 'http_server_request_duration_seconds_sum', ok)).toBeGreaterThan(0);
    // Raw paths (ids) never become labels.
    expect(after).not.toContain(t.projectId);
  });
});
