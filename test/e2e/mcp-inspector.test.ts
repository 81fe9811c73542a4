/**
 * The MCP Inspector (`@modelcontextprotocol/inspector --cli`, the reference client's command-line mode) as an
 * independent client of both transports: the built `assay-mcp` bin over stdio and the gateway's /mcp over
 * Streamable HTTP. tools/list (with --strict: every tool schema portable across model providers) and a
 * tools/call on each, read from its JSON output.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TOOLS } from '@assay/mcp';
import { testAdmin, testApi, testSystem, type Tenant } from '@assay/testkit';

jest.setTimeout(120_000);
const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');
const MCP_BIN = path.join(ROOT, 'packages', 'mcp', 'dist', 'cjs', 'bin.js');
const INSPECTOR = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json')),
  'clients',
  'launcher',
  'build',
  'index.js',
);

const admin = testAdmin();
let t: Tenant;
let home: string;

beforeAll(async () => {
  t = await admin.tenant('member');
  // The Inspector keeps a catalog of servers in its home folder: a throwaway one.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-inspector-'));
});
afterAll(() => {
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

/** Runs the Inspector's CLI mode; stdout is its JSON answer. */
async function inspector(args: string[]): Promise<{ json: any; stderr: string }> {
  const { stdout, stderr } = await run(process.execPath, [INSPECTOR, '--cli', ...args], {
    env: { PATH: process.env.PATH, HOME: home, MCP_CATALOG_PATH: path.join(home, 'mcp.json') },
    maxBuffer: 16 * 1024 * 1024,
  });
  return { json: JSON.parse(stdout), stderr };
}

const stdioServer = () => [process.execPath, MCP_BIN, '-e', `ASSAY_URL=${testSystem().gatewayUrl}`, '-e', `ASSAY_TOKEN=${t.token}`];
const httpServer = () => [`${testSystem().gatewayUrl}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${t.token}`];

const textOf = (result: any) => JSON.parse(result.content[0].text);

describe.each([
  ['stdio', stdioServer],
  ['Streamable HTTP', httpServer],
])('the MCP Inspector CLI over %s', (_kind, server) => {
  it('lists every tool, with schemas portable to every model provider (--strict)', async () => {
    const { json, stderr } = await inspector([...server(), '--method', 'tools/list', '--strict']);
    expect(json.tools.map((x: { name: string }) => x.name).sort()).toEqual(Object.keys(TOOLS).sort());
    expect(stderr).not.toMatch(/Warning|Error:/);
  });

  it('calls a read tool and a write tool', async () => {
    const projects = await inspector([...server(), '--method', 'tools/call', '--tool-name', 'list_projects']);
    expect(projects.json.isError).toBeFalsy();
    expect(textOf(projects.json).projects).toEqual([expect.objectContaining({ id: t.projectId })]);

    const name = `Inspector ${_kind}`;
    const created = await inspector([
      ...server(),
      '--method',
      'tools/call',
      '--tool-name',
      'create_manual_suite',
      '--tool-arg',
      `name=${name}`,
    ]);
    expect(created.json.isError).toBeFalsy();
    const suite = textOf(created.json).data;
    expect(suite).toMatchObject({ name, _id: expect.any(String) });
    const listed = await testApi(t.token).get(`/${t.projectId}/manual-test-suites?limit=100`);
    expect(listed.body.data.map((s: { _id: string }) => s._id)).toContain(suite._id);
  });
});
