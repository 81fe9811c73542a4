/**
 * The MCP server (@assay/mcp, CONTRACT §10) against the whole running system, with the official MCP SDK client
 * over both transports: stdio (the built `assay-mcp` bin, configured by environment) and Streamable HTTP (the
 * gateway's /mcp with a bearer token, or the app session cookie). Every tool is called on data the test makes (a
 * real Playwright report ingested, manual-testing entities created through the tools themselves). Authorization is
 * the API's: a viewer's write is FORBIDDEN, another project is NOT_FOUND, no credentials is 401.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS } from '@assay/mcp';
import { adminCli, testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';
import { realPlaywrightReport, type RealReport } from './support/playwright';

jest.setTimeout(120_000);
const admin = testAdmin();
const ROOT = path.resolve(__dirname, '..', '..');
export const MCP_BIN = path.join(ROOT, 'packages', 'mcp', 'dist', 'cjs', 'bin.js');

type Transport = 'stdio' | 'http';

async function connect(transport: Transport, token: string, env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'assay-e2e', version: '1.0.0' });
  if (transport === 'stdio') {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MCP_BIN],
        env: { PATH: process.env.PATH ?? '', ASSAY_URL: testSystem().gatewayUrl, ASSAY_TOKEN: token, ...env },
        stderr: 'pipe',
      }),
    );
  } else {
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', testSystem().gatewayUrl), {
        requestInit: { headers: { Authorization: `Bearer ${token}`, ...env } },
      }),
    );
  }
  return client;
}

/** A tool's answer: the parsed JSON of a success, or the error object of a tool error. */
async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = res.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { isError: res.isError === true, body, text };
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const res = await callTool(client, name, args);
  if (res.isError) throw new Error(`${name} failed: ${res.text}`);
  return res.body;
}

let t: Tenant;
let viewer: { token: string };
let report: RealReport;
let runId: string;
const metadata = {
  git: { branch: 'main', commit: { hash: 'abc123', message: 'Fix checkout', author: 'Ada' } },
  environment: 'staging',
  ci: { provider: 'github', pipelineId: '7', buildUrl: 'https://ci.example.test/7' },
  tags: ['nightly'],
};

beforeAll(async () => {
  [t, report] = await Promise.all([admin.tenant('owner'), realPlaywrightReport()]);
  viewer = await admin.member(t.orgId, 'viewer', { projects: [t.projectId] });
  const key = (await admin.apiKey(t.projectId)).token;
  for (let i = 0; i < 2; i++) {
    const res = await testApi(key).request('POST', `/api/v1/ingest/${t.projectId}/playwright`, { body: { ...report.json, metadata } });
    expect(res.status).toBe(201);
    runId = res.body.data.runId;
  }
  // An action rule, made the way an operator makes one: with the admin CLI.
  const rule = await adminCli(testSystem(), [
    'rule:create',
    '--project',
    t.projectId,
    '--name',
    'Quarantine flaky',
    '--operations',
    'quarantine',
    '--title-pattern',
    'flaky',
  ]);
  expect(rule.code).toBe(0);
});

describe.each<Transport>(['http', 'stdio'])('the Assay MCP server over %s', (transport) => {
  let mcp: Client;
  beforeAll(async () => {
    // stdio: the token covers exactly one project, so the tools find it without projectId or ASSAY_PROJECT_ID.
    mcp = await connect(transport, t.token);
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('lists every tool with a description and an input schema, writes marked as not read-only', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(Object.keys(TOOLS).sort());
    for (const x of tools) {
      expect(x.description!.length).toBeGreaterThan(40);
      expect(x.inputSchema.type).toBe('object');
    }
    const byName = new Map(tools.map((x) => [x.name, x]));
    expect(byName.get('list_runs')!.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('create_manual_case')!.annotations?.readOnlyHint).toBe(false);
    expect(byName.get('list_runs')!.inputSchema.properties).toHaveProperty('branch');
    expect(mcp.getServerVersion()).toMatchObject({ name: 'assay', version: '0.1.0' });
    expect(mcp.getInstructions()).toContain('get_debug_bundle');
  });

  it('reads projects, runs, failures grouped by error, results, the debug bundle and history', async () => {
    const projects = await ok(mcp, 'list_projects');
    expect(projects.projects).toEqual([expect.objectContaining({ id: t.projectId })]);

    const runs = await ok(mcp, 'list_runs', { projectId: t.projectId, branch: 'main', status: 'failed', limit: 10 });
    expect(runs.data).toHaveLength(2);
    expect(runs.pagination).toMatchObject({ total: 2, hasNext: false });
    expect(runs.data[0]).toMatchObject({ id: runId, status: 'failed', metadata: { git: { branch: 'main' } } });
    const paged = await ok(mcp, 'list_runs', { limit: 10, startDate: '2000-01-01T00:00:00Z', endDate: '2100-01-01T00:00:00Z' });
    expect(paged.data).toHaveLength(2);
    expect((await ok(mcp, 'list_runs', { branch: 'nope' })).data).toEqual([]);

    const run = await ok(mcp, 'get_run', { runId, include: ['errors'] });
    expect(run.data).toMatchObject({ id: runId, testStats: { total: 6, failed: 2 } });

    const failures = await ok(mcp, 'get_run_failures', { runId });
    expect(failures.run).toMatchObject({ id: runId, status: 'failed' });
    expect(failures.errorGroups.length).toBeGreaterThan(0);
    expect(failures.failedTests.length).toBeGreaterThan(0);
    const failed = failures.failedTests[0];

    const tests = await ok(mcp, 'list_run_tests', { runId, limit: 10 });
    expect(tests.data).toHaveLength(6);
    const result = await ok(mcp, 'get_test_result', { resultId: failed.id, includeHistory: true });
    expect(result.data).toMatchObject({ id: failed.id, overview: { status: failed.status } });
    expect(result.data.history.summary.totalRuns).toBe(2);

    const md = await callTool(mcp, 'get_debug_bundle', { resultId: failed.id, maxLength: 5000 });
    expect(md.isError).toBe(false);
    expect(typeof md.body).toBe('string');
    expect(md.text).toMatch(/^#/m);
    expect(md.text.length).toBeLessThanOrEqual(5000);
    expect((await callTool(mcp, 'get_debug_bundle', { runId })).text).toContain(result.data.metadata.test.title);
    const suiteBundle = await callTool(mcp, 'get_debug_bundle', { runId, suiteId: result.data.metadata.test.specId });
    expect(suiteBundle.isError).toBe(false);
    expect((await callTool(mcp, 'get_debug_bundle', {})).body.error.code).toBe('VALIDATION_ERROR');

    const history = await ok(mcp, 'get_test_history', { resultId: failed.id, limit: 10 });
    expect(history.data).toHaveLength(2);
    expect(history.stability).toMatchObject({ totalRuns: 2, stabilityScore: expect.any(Number) });
    const byId = await ok(mcp, 'get_test_history', { testId: result.data.metadata.test.id, branch: 'main' });
    expect(byId.data).toHaveLength(2);
    expect(byId.stability.totalRuns).toBe(2);
    const byTitle = await ok(mcp, 'get_test_history', { title: history.data[0].title, limit: 10 });
    expect(byTitle.data.length).toBeGreaterThan(0);
  });

  it('reads flaky, failing and slow tests, spec files, analytics, dashboard, filters, rules and the quarantine summary', async () => {
    const flaky = await ok(mcp, 'find_tests', { status: 'flaky', days: 7 });
    expect(flaky.data.length).toBeGreaterThan(0);
    const failing = await ok(mcp, 'find_tests', { status: 'failing', sortBy: 'failure_rate', order: 'desc', limit: 25 });
    expect(failing.data.length).toBeGreaterThan(0);
    expect((await ok(mcp, 'find_tests', { status: 'slow' })).success).toBe(true);
    expect((await ok(mcp, 'list_spec_files', { days: 30 })).data.length).toBeGreaterThan(0);
    const summary = await ok(mcp, 'get_analytics_summary', { days: 30 });
    expect(summary.success).toBe(true);
    expect((await ok(mcp, 'get_dashboard')).success).toBe(true);
    const filters = await ok(mcp, 'get_filter_values');
    expect(filters.data).toMatchObject({ branches: ['main'], environments: ['staging'] });
    const rules = await ok(mcp, 'list_action_rules', { status: 'active' });
    expect(rules.data.rules).toEqual([expect.objectContaining({ name: 'Quarantine flaky', operations: ['quarantine'] })]);
    const quarantine = await ok(mcp, 'get_quarantine_summary', { windowDays: 30 });
    expect(quarantine.data).toMatchObject({ rules: { quarantine: 1 }, windowDays: 30 });
  });

  it('does the manual-testing work: suites, cases from a description, releases, sessions, manual runs and verdicts', async () => {
    const tag = `${transport}-${randomBytes(3).toString('hex')}`;
    const suite = (await ok(mcp, 'create_manual_suite', { name: `Checkout ${tag}`, description: 'made over MCP' })).data;
    const child = (await ok(mcp, 'create_manual_suite', { name: `Payment ${tag}`, parentSuiteId: suite._id })).data;
    const moved = await ok(mcp, 'update_manual_suite', { suiteId: child._id, description: 'card payments' });
    expect(moved.data).toMatchObject({ description: 'card payments' });
    const suites = await ok(mcp, 'list_manual_suites', { limit: 100 });
    expect(suites.data.map((s: { _id: string }) => s._id)).toContain(suite._id);

    const created = await ok(mcp, 'create_manual_case', {
      title: `Pay with a saved card ${tag}`,
      suiteId: suite._id,
      description: 'A returning customer pays with the card saved on their account.',
      preconditions: 'A customer with a saved card',
      steps: [
        { action: 'Open the cart', expectedResult: 'The cart shows the items' },
        { action: 'Choose the saved card and pay', expectedResult: 'The order is confirmed', data: 'card •••• 4242' },
      ],
      priority: 'high',
      tags: 'checkout,payments',
    });
    expect(created.data).toMatchObject({ title: `Pay with a saved card ${tag}`, tags: ['checkout', 'payments'] });
    expect(created.data.steps.classic).toHaveLength(2);
    const caseId = created.data.caseId as string;
    const updated = await ok(mcp, 'update_manual_case', { caseId, severity: 'critical', comments: ['checked over MCP'] });
    expect(updated.data.classification.severity).toBe('critical');
    expect((await ok(mcp, 'get_manual_case', { caseId })).data._id).toBe(created.data._id);
    const found = await ok(mcp, 'list_manual_cases', { search: tag, suiteId: suite._id });
    expect(found.data.map((c: { _id: string }) => c._id)).toEqual([created.data._id]);
    const bad = await callTool(mcp, 'create_manual_case', { title: 'No such suite', suiteName: `missing ${tag}` });
    expect(bad.isError).toBe(true);
    expect(['VALIDATION_ERROR', 'NOT_FOUND']).toContain(bad.body.error.code);

    const release = (
      await ok(mcp, 'create_release', { name: `R ${tag}`, branch: 'main', buildTarget: { platform: 'web', version: '1.2.3' } })
    ).data;
    expect((await ok(mcp, 'update_release', { releaseId: release._id, isStarted: true })).data.isStarted).toBe(true);
    expect((await ok(mcp, 'get_release', { releaseId: release._id })).data.name).toBe(`R ${tag}`);
    expect((await ok(mcp, 'list_releases', { search: tag })).data).toHaveLength(1);

    const session = (await ok(mcp, 'create_session', { name: `Explore ${tag}`, mission: '<p>Break the checkout</p>', estimate: 30 })).data;
    expect((await ok(mcp, 'update_session', { sessionId: session._id, status: 'closed' })).data.status).toBe('closed');
    expect((await ok(mcp, 'list_sessions', { status: 'closed' })).data.map((s: { _id: string }) => s._id)).toContain(session._id);

    const mrun = (
      await ok(mcp, 'create_manual_run', {
        name: `Regression ${tag}`,
        selectionMode: 'selected',
        testCaseIds: [created.data._id],
        releaseId: release._id,
      })
    ).data;
    const runCases = await ok(mcp, 'list_manual_run_cases', { runId: mrun._id });
    expect(runCases.data).toHaveLength(1);
    const verdict = await ok(mcp, 'set_manual_verdict', { runId: mrun._id, caseRef: caseId, result: 'failed', elapsed: 42 });
    expect(verdict.data).toMatchObject({ result: 'failed', elapsed: 42 });
    const mixed = await callTool(mcp, 'set_manual_verdict', { runId: mrun._id, caseRef: caseId, result: 'passed', comment: 'both modes' });
    expect(mixed.body.error).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect((await ok(mcp, 'get_manual_run', { runId: mrun._id })).data._id).toBe(mrun._id);
    expect((await ok(mcp, 'update_manual_run', { runId: mrun._id, status: 'closed' })).data.status).toBe('closed');
    expect((await ok(mcp, 'list_manual_runs', { status: 'closed' })).data.map((r: { _id: string }) => r._id)).toContain(mrun._id);
  });

  it('generates a PDF report and reads its status', async () => {
    const report = await ok(mcp, 'generate_pdf_report', { days: 7, branch: 'main' });
    expect(report).toMatchObject({ reportId: expect.any(String), status: 'ready', sizeBytes: expect.any(Number) });
    expect(report.downloadPath).toBe(`/api/v1/public/${t.projectId}/reports/${report.reportId}/download`);
    const status = await ok(mcp, 'get_report_status', { reportId: report.reportId });
    expect(status).toMatchObject({ reportId: report.reportId, status: 'ready', sizeBytes: report.sizeBytes });
    const pdf = await fetch(`${testSystem().gatewayUrl}${report.downloadPath}`, { headers: { Authorization: `Bearer ${t.token}` } });
    expect(pdf.headers.get('content-type')).toContain('application/pdf');
    expect((await pdf.arrayBuffer()).byteLength).toBe(report.sizeBytes);
  });

  it("refuses a viewer's writes with the API's FORBIDDEN, lets the viewer read, and hides another project", async () => {
    const v = await connect(transport, viewer.token);
    try {
      const refused = await callTool(v, 'create_manual_suite', { name: 'Not allowed' });
      expect(refused.isError).toBe(true);
      expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', status: 403 });
      expect((await ok(v, 'list_runs', {})).data).toHaveLength(2);
    } finally {
      await v.close();
    }
    const other = await admin.tenant('owner');
    for (const [name, args] of [
      ['list_runs', { projectId: other.projectId }],
      ['get_run', { projectId: other.projectId, runId }],
      ['create_manual_suite', { projectId: other.projectId, name: 'x' }],
    ] as const) {
      const res = await callTool(mcp, name, args);
      expect(res.isError).toBe(true);
      expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    }
  });
});

describe('the stdio server', () => {
  it('uses ASSAY_PROJECT_ID when a token covers several projects, and asks for projectId without it', async () => {
    await admin.project(t.orgId, 'Second project');
    const wide = await admin.member(t.orgId, 'member', { projects: '*' });
    const plain = await connect('stdio', wide.token);
    try {
      const res = await callTool(plain, 'list_runs');
      expect(res.body.error.code).toBe('PROJECT_REQUIRED');
      expect((await ok(plain, 'list_runs', { projectId: t.projectId })).data).toHaveLength(2);
    } finally {
      await plain.close();
    }
    const scoped = await connect('stdio', wide.token, { ASSAY_PROJECT_ID: t.projectId });
    try {
      expect((await ok(scoped, 'list_runs')).data).toHaveLength(2);
    } finally {
      await scoped.close();
    }
  });

  it('surfaces a bad token as a tool error with the API code', async () => {
    const bad = await connect('stdio', 'svc_pat_nope');
    try {
      const res = await callTool(bad, 'list_runs', { projectId: t.projectId });
      expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    } finally {
      await bad.close();
    }
  });
});

describe('/mcp on the gateway', () => {
  const url = () => `${testSystem().gatewayUrl}/mcp`;
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const post = (headers: Record<string, string>, body: unknown = init) =>
    fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  it('answers 401 without credentials or with a bad token, in the API envelope', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer svc_pat_nope' }, { authorization: 'Basic x' }];
    for (const headers of attempts) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).error.code).toBe('UNAUTHORIZED');
    }
    const client = new Client({ name: 'anon', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(url())))).rejects.toThrow(/UNAUTHORIZED/);
  });

  it('is stateless JSON: initialize answers without a session id; GET is 405; a non-JSON body is 415; a long batch is 400', async () => {
    const res = await post({ authorization: `Bearer ${t.token}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const body = (await res.json()) as any;
    expect(body.result.serverInfo).toMatchObject({ name: 'assay' });
    const get = await fetch(url(), { headers: { authorization: `Bearer ${t.token}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    const batch = Array.from({ length: 11 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }));
    const tooMany = await post({ authorization: `Bearer ${t.token}` }, batch);
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as any).error.code).toBe('VALIDATION_ERROR');
    const text = await fetch(url(), {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(text.status).toBe(415);
  });

  it('is left out of the OpenAPI document (not a REST operation), which says where it is', async () => {
    const doc = (await (await fetch(`${testSystem().gatewayUrl}/api/v1/public/openapi.json`)).json()) as any;
    expect(Object.keys(doc.paths).filter((p) => p.includes('mcp'))).toEqual([]);
    expect(doc.info.description).toContain('POST /mcp');
  });

  it('accepts the app session cookie like the API: its POST needs X-Assay-CSRF, and the tools act as that user', async () => {
    const { userId } = await admin.member(t.orgId, 'viewer', { projects: [t.projectId] });
    const invitation = await admin.rpc.createInvitation({ userId });
    const token = new URL(invitation.url).hash.replace(/^#token=/, '');
    const accepted = await fetch(`${testSystem().gatewayUrl}/api/v1/app/invitations/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, password: 'correct horse battery staple' }),
    });
    expect(accepted.status).toBe(200);
    const cookie = accepted.headers.get('set-cookie')!.split(';')[0]!;

    const noCsrf = await post({ cookie });
    expect(noCsrf.status).toBe(403);
    expect(((await noCsrf.json()) as any).error.code).toBe('FORBIDDEN');

    const session = new Client({ name: 'app', version: '1' });
    await session.connect(new StreamableHTTPClientTransport(new URL(url()), { requestInit: { headers: { cookie, 'x-assay-csrf': '1' } } }));
    try {
      expect((await ok(session, 'list_runs', { projectId: t.projectId })).data).toHaveLength(2);
      const refused = await callTool(session, 'create_manual_suite', { projectId: t.projectId, name: 'viewer write' });
      expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    } finally {
      await session.close();
    }
  });

  it('finds the project of a signed-in user whose organizations have one, as for a token (token-info describes the session)', async () => {
    const solo = await admin.tenant('owner');
    const link = await admin.rpc.createSignInLink({ userId: solo.userId });
    const signedIn = await fetch(`${testSystem().gatewayUrl}/api/v1/app/sign-in-links/use`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(link.url).hash.replace(/^#token=/, '') }),
    });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const session = new Client({ name: 'app', version: '1' });
    await session.connect(new StreamableHTTPClientTransport(new URL(url()), { requestInit: { headers: { cookie, 'x-assay-csrf': '1' } } }));
    try {
      expect(await ok(session, 'list_projects', {})).toMatchObject({ tokenType: 'pat', projects: [{ id: solo.projectId }] });
      // No projectId: the tool asks token-info for the only project.
      expect(await ok(session, 'list_runs', {})).toMatchObject({ data: [], pagination: { total: 0 } });
    } finally {
      await session.close();
    }
  });
});
