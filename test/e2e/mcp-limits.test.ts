/**
 * /mcp under the API's rate limits, on a private gateway with small limits and its own Redis: a tool call costs
 * what the API call it makes costs. The /mcp request counts once per IP (like every /api request); the tool's API
 * calls count in the token's buckets (reads here) and not again per IP; MCP requests that call no API (tools/list)
 * use no token budget. Over the token's budget a tool answers the API's RATE_LIMIT_EXCEEDED; over the IP's, /mcp
 * itself answers 429.
 */
import { startPrivateGateway, startPrivateRedis, testAdmin, type PrivateGateway, type PrivateRedis, type Tenant } from '@assay/testkit';

const admin = testAdmin();
let redis: PrivateRedis;
let gateway: PrivateGateway;
let t: Tenant;

beforeAll(async () => {
  redis = await startPrivateRedis();
  [gateway, t] = await Promise.all([
    startPrivateGateway({
      name: 'mcp-limits',
      env: { REDIS_URL: redis.url, TRUSTED_PROXY_HOPS: '0', RATE_LIMITS: 'reads=4,writes=2,ip=10' },
    }),
    admin.tenant('owner'),
  ]);
});

afterAll(async () => {
  await gateway?.stop();
  await redis?.remove();
});

let id = 0;
async function rpc(method: string, params: Record<string, unknown> = {}) {
  const res = await fetch(`${gateway.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}
const listRuns = () => rpc('tools/call', { name: 'list_runs', arguments: { projectId: t.projectId } });
const toolError = (body: any) => JSON.parse(body.result.content[0].text).error;

it('counts /mcp per IP once, tool API calls per token only, and answers 429 from either limit', async () => {
  // 3 requests that call no API: the IP's budget only (3 of 10).
  for (let i = 0; i < 3; i++) {
    const list = await rpc('tools/list');
    expect(list.status).toBe(200);
    expect(list.body.result.tools.length).toBeGreaterThan(30);
  }
  // 4 tool calls, one API read each: the token's 4 reads (IP 7 of 10; counted per IP twice it would be 11).
  for (let i = 0; i < 4; i++) {
    const res = await listRuns();
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBeFalsy();
  }
  // The 5th read is over the token's limit: the API's 429, as a tool error (IP 8).
  const over = await listRuns();
  expect(over.status).toBe(200);
  expect(over.body.result.isError).toBe(true);
  expect(toolError(over.body)).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
  // The IP's last two requests, then its 429 on /mcp itself, before authentication.
  expect((await rpc('tools/list')).status).toBe(200);
  expect((await rpc('tools/list')).status).toBe(200);
  const ipOver = await rpc('tools/list');
  expect(ipOver.status).toBe(429);
  expect(ipOver.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  expect(Number(ipOver.headers.get('retry-after'))).toBeGreaterThan(0);
});
