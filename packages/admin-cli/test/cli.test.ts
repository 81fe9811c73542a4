/** The admin CLI as a user runs it (`npm run admin -- …` runs this same file) against the running system. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { testApi, testSystem } from '@assay/testkit';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '..', 'dist', 'main.js');

async function cli(...args: string[]): Promise<{ code: number; json: any }> {
  const s = testSystem();
  try {
    const { stdout } = await run(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, ASSAY_ADMIN_URL: s.adminUrl, INTERNAL_AUTH_TOKEN: s.internalToken, ASSAY_DATA_DIR: '/nonexistent' },
    });
    return { code: 0, json: JSON.parse(stdout) };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, json: JSON.parse(e.stdout) };
  }
}

describe('admin CLI', () => {
  it('creates an organization, user, membership, project and token that work against the API', async () => {
    const org = await cli('org:create', '--name', 'CLI org');
    expect(org.code).toBe(0);
    expect(org.json).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/) });
    const user = await cli('user:create', '--email', `cli-${Date.now()}@example.test`, '--name', 'Cli User');
    expect(user.json.id).toBeDefined();
    expect((await cli('member:add', '--org', org.json.id, '--user', user.json.id, '--role', 'admin')).json).toEqual({ ok: true });
    const project = await cli('project:create', '--org', org.json.id, '--name', 'CLI project');
    const token = await cli(
      'token:create',
      '--user',
      user.json.id,
      '--name',
      'laptop',
      '--projects',
      project.json.id,
      '--expires-days',
      '30',
    );
    expect(token.json).toEqual({ id: expect.any(String), token: expect.stringMatching(/^svc_pat_/) });
    const res = await testApi(token.json.token).get(`/${project.json.id}/token-info`);
    expect(res.status).toBe(200);
    expect(res.body.data.projectName).toBe('CLI project');

    expect((await cli('member:set-role', '--org', org.json.id, '--user', user.json.id, '--role', 'viewer')).json).toEqual({ ok: true });
    expect((await testApi(token.json.token).post(`/${project.json.id}/manual-test-suites`, { name: 'x' })).status).toBe(403);

    const rotated = await cli('token:rotate', '--id', token.json.id);
    expect(rotated.json).toEqual({ id: token.json.id, token: expect.stringMatching(/^svc_pat_/) });
    expect((await testApi(token.json.token).get(`/${project.json.id}/token-info`)).body.error.code).toBe('TOKEN_REVOKED');
    expect((await cli('token:revoke', '--id', token.json.id)).json).toEqual({ ok: true });
    expect((await testApi(rotated.json.token).get(`/${project.json.id}/token-info`)).body.error.code).toBe('TOKEN_REVOKED');
  });

  it('prints both spellings of a project api key', async () => {
    const org = await cli('org:create', '--name', 'Keys');
    const project = await cli('project:create', '--org', org.json.id, '--name', 'P');
    const key = await cli('token:create', '--project', project.json.id);
    expect(key.json).toEqual({
      id: expect.any(String),
      token: expect.stringMatching(/^svc_pat_[0-9a-f]{72}$/),
      uploadKey: expect.stringMatching(/^trx_production_[0-9a-f]{64}$/),
    });
  });

  it.each([
    ['an unknown role', ['member:add', '--org', '0123456789abcdef01234567', '--user', '0123456789abcdef01234567', '--role', 'superuser']],
    ['an unknown user', ['member:add', '--org', 'ORG', '--user', '0123456789abcdef01234567', '--role', 'member']],
    ['--expires-days outside 30/60/90/180', ['token:create', '--user', 'USER', '--expires-days', '45']],
    ['an unknown command', ['org:destroy']],
    ['a missing flag', ['org:create']],
    ['an unknown flag', ['org:create', '--name', 'x', '--colour', 'red']],
    ['an unknown token id', ['token:revoke', '--id', '0123456789abcdef01234567']],
  ])('exits non-zero with a JSON error for %s', async (_label, args) => {
    const org = await cli('org:create', '--name', 'E');
    const user = await cli('user:create', '--email', `e-${Date.now()}-${Math.random()}@example.test`, '--name', 'E');
    const res = await cli(...args.map((a) => a.replace('ORG', org.json.id).replace('USER', user.json.id)));
    expect(res.code).not.toBe(0);
    expect(res.json).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
  });
});
