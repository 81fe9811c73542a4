/**
 * The admin CLI as a user runs it (`assay`, and `npm run admin -- …`, run this same file) against the running
 * system: the help generated from the command table, the version, the list commands over real services, and
 * the exit codes with their JSON errors (on stderr only).
 */
import fs from 'node:fs';
import path from 'node:path';
import { adminCli, testApi, testSystem, type AdminCliOutcome } from '@assay/testkit';
import { commands } from '../src/commands';
import { EXIT_CODES } from '../src/exit-codes';

const cli = (...args: string[]) => adminCli(testSystem(), args);
const cliWith = (env: Record<string, string>, ...args: string[]) => adminCli(testSystem(), args, env);

const email = (label: string) => `${label}-${Date.now()}-${Math.random().toString(16).slice(2)}@example.test`;

describe('admin CLI', () => {
  it('creates an organization, user, membership, project and token that work against the API', async () => {
    const org = await cli('org:create', '--name', 'CLI org');
    expect(org.code).toBe(0);
    expect(org.json).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/) });
    const user = await cli('user:create', '--email', email('cli'), '--name', 'Cli User');
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
});

describe('help and version', () => {
  it('assay --help lists every command of the table with its summary, the environment and the exit codes', async () => {
    const help = await cli('--help');
    expect([help.code, help.stderr]).toEqual([0, '']);
    for (const [name, c] of Object.entries(commands)) expect(help.stdout).toMatch(new RegExp(`^  ${name} +${escape(c.summary)}$`, 'm'));
    // Nothing listed that the table does not hold.
    const listed = help.stdout.split('Commands:\n')[1]!.split('\n\n')[0]!.split('\n');
    expect(listed.map((l) => l.trim().split(/\s+/)[0])).toEqual(Object.keys(commands));
    for (const e of EXIT_CODES) expect(help.stdout).toMatch(new RegExp(`^  ${e.code}  ${escape(e.meaning)}`, 'm'));
    for (const v of ['ASSAY_ADMIN_URL', 'RUNS_URL', 'ANALYTICS_URL', 'INTERNAL_AUTH_TOKEN']) expect(help.stdout).toContain(v);
    expect((await cli('-h')).stdout).toBe(help.stdout);
  });

  it.each(Object.keys(commands))(
    'assay %s --help lists each of its flags, which are required, what it prints and the exit codes',
    async (name) => {
      const c = commands[name]!;
      const help = await cli(name, '--help');
      expect([help.code, help.stderr]).toEqual([0, '']);
      expect(help.stdout).toContain(`Usage: assay ${name}`);
      expect(help.stdout).toContain(c.summary);
      for (const f of c.flags) {
        const flag = f.value ? `--${f.name} ${f.value}` : `--${f.name}`;
        expect(help.stdout).toMatch(new RegExp(`^  ${escape(flag)} +${escape(f.description)}${f.required ? ' \\(required\\)' : ''}$`, 'm'));
      }
      expect(help.stdout).toContain(`Prints: ${c.prints}`);
      for (const e of EXIT_CODES) expect(help.stdout).toMatch(new RegExp(`^  ${e.code}  `, 'm'));
      // The help needs no flag of the command, nor the system.
      expect((await cliWith({ INTERNAL_AUTH_TOKEN: '' }, name, '-h')).stdout).toBe(help.stdout);
    },
  );

  it("the README's table of exit codes is the CLI's", () => {
    const readme = fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Admin CLI'));
    const rows = section
      .slice(0, section.indexOf('\n\n', section.indexOf('| Exit code')))
      .split('\n')
      .filter((l) => /^\| \d/.test(l));
    expect(rows.map((r) => Number(r.split('|')[1]))).toEqual(EXIT_CODES.map((e) => e.code));
    for (const e of EXIT_CODES) {
      const row = rows.find((r) => Number(r.split('|')[1]) === e.code)!;
      for (const c of e.errorCodes.filter((x) => x !== '…')) expect(row).toContain(`\`${c}\``);
    }
  });

  it('assay --version prints the version of the package', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', 'package.json'), 'utf8'));
    expect(await cli('--version')).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect((await cli('-V')).stdout).toBe(`${version}\n`);
  });
});

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('list commands against the running system', () => {
  let org: string;
  let owner: string;
  let viewer: string;
  const projects: string[] = [];
  let pat: string;
  let key: { id: string; token: string; uploadKey: string };
  const rules: string[] = [];

  beforeAll(async () => {
    org = (await cli('org:create', '--name', 'Lists')).json.id;
    owner = (await cli('user:create', '--email', email('owner'), '--name', 'Owner')).json.id;
    viewer = (await cli('user:create', '--email', email('viewer'), '--name', 'Viewer')).json.id;
    await cli('member:add', '--org', org, '--user', owner, '--role', 'owner');
    await cli('member:add', '--org', org, '--user', viewer, '--role', 'viewer');
    for (const name of ['Web', 'API', 'Mobile']) projects.push((await cli('project:create', '--org', org, '--name', name)).json.id);
    pat = (await cli('token:create', '--user', owner, '--name', 'laptop', '--projects', `${projects[0]},${projects[1]}`)).json.id;
    key = (await cli('token:create', '--project', projects[0]!, '--name', 'ci')).json;
    for (const name of ['Flaky', 'Slow']) {
      rules.push(
        (await cli('rule:create', '--project', projects[0]!, '--name', name, '--operations', 'tag', '--tag', name, '--file', 'a.spec.ts'))
          .json.id,
      );
    }
    await cli('rule:disable', '--id', rules[0]!);
  });

  /** Newest first by id (a member: by user id). */
  const byId = <T extends { id?: string; userId?: string }>(items: T[]) =>
    [...items].sort((a, b) => ((a.id ?? a.userId)! < (b.id ?? b.userId)! ? 1 : -1));

  it('organizations and users: what was created, newest first', async () => {
    const orgs = await cli('organizations', '--limit', '200');
    expect(orgs.code).toBe(0);
    expect(orgs.json.items).toEqual(byId(orgs.json.items));
    expect(orgs.json.items).toContainEqual({ id: org, name: 'Lists', createdAt: expect.stringMatching(/^\d{4}-.*Z$/) });
    const users = await cli('users', '--limit', '200');
    expect(users.json.items).toContainEqual(
      expect.objectContaining({ id: viewer, name: 'Viewer', email: expect.stringMatching(/^viewer-/) }),
    );
  });

  it('members of an organization with their role', async () => {
    const res = await cli('members', '--org', org);
    expect(res.json).toEqual({
      items: byId([
        { userId: owner, email: expect.any(String), name: 'Owner', role: 'owner', joinedAt: expect.any(String) },
        { userId: viewer, email: expect.any(String), name: 'Viewer', role: 'viewer', joinedAt: expect.any(String) },
      ]),
      nextCursor: null,
    });
  });

  it('projects of an organization, and of all', async () => {
    const res = await cli('projects', '--org', org);
    expect(res.json.items.map((p: { id: string }) => p.id)).toEqual([...projects].sort().reverse());
    expect(res.json.items.find((p: { id: string }) => p.id === projects[1])).toEqual({
      id: projects[1],
      orgId: org,
      name: 'API',
      createdAt: expect.any(String),
    });
    expect(res.json.nextCursor).toBeNull();
    expect((await cli('projects', '--limit', '200')).json.items.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining(projects));
  });

  it('tokens of a user and of a project, without their secrets', async () => {
    const mine = await cli('tokens', '--user', owner);
    expect(mine.json).toEqual({
      items: [
        {
          id: pat,
          type: 'pat',
          name: 'laptop',
          userId: owner,
          projectId: null,
          allProjects: false,
          projectIds: [projects[0], projects[1]].sort(),
          createdAt: expect.any(String),
          expiresAt: null,
          lastUsedAt: null,
          revoked: false,
        },
      ],
      nextCursor: null,
    });
    const keys = await cli('tokens', '--project', projects[0]!);
    expect(keys.json.items).toEqual([
      expect.objectContaining({ id: key.id, type: 'api_key', name: 'ci', projectId: projects[0], userId: null }),
    ]);
    expect(keys.stdout).not.toContain(key.token.slice(-64));
    expect(keys.stdout).not.toContain(key.uploadKey.slice(-64));
  });

  it('rules of a project with their status', async () => {
    const res = await cli('rules', '--project', projects[0]!);
    expect(res.json.items.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual(
      byId(rules.map((id) => ({ id }))).map((r) => [r.id, r.id === rules[0] ? 'disabled' : 'active']),
    );
    expect(res.json.items.find((r: { id: string }) => r.id === rules[1])).toMatchObject({
      name: 'Slow',
      operations: ['tag'],
      match: { file: 'a.spec.ts' },
      tag: 'Slow',
      enabled: true,
    });
    expect((await cli('rules', '--project', projects[2]!)).json).toEqual({ items: [], nextCursor: null });
  });

  it('pages: --limit rows each, --cursor the next page, nextCursor null on the last; every row once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: AdminCliOutcome = await cli('projects', '--org', org, '--limit', '1', ...(cursor ? ['--cursor', cursor] : []));
      expect(res.json.items).toHaveLength(1);
      seen.push(res.json.items[0].id);
      cursor = res.json.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(seen).toEqual([...projects].sort().reverse());
    const two = await cli('members', '--org', org, '--limit', '2');
    expect([two.json.items.length, two.json.nextCursor]).toEqual([2, null]);
  });

  it.each([
    ['0', ['--limit', '0']],
    ['201 (above the most, 200)', ['--limit', '201']],
    ['not a number', ['--limit', 'ten']],
    ['an empty cursor', ['--cursor', '']],
  ])('refuses a page size or cursor of %s: exit 2', async (_label, flags) => {
    const res = await cli('organizations', ...flags);
    expect([res.code, res.json.error.code, res.stdout]).toEqual([2, 'USAGE', '']);
  });

  it('refuses a cursor that is none: exit 4 (the system refused it)', async () => {
    const res = await cli('organizations', '--cursor', 'not-a-cursor');
    expect([res.code, res.json.error.code, res.stdout]).toEqual([4, 'VALIDATION_ERROR', '']);
  });
});

describe('errors: one JSON object on stderr, nothing on stdout, the documented exit code', () => {
  const ghost = '0123456789abcdef01234567';
  it.each([
    ['no command', [], 2, 'USAGE'],
    ['an unknown command', ['org:destroy'], 2, 'USAGE'],
    ['a missing required flag', ['org:create'], 2, 'USAGE'],
    ['an unknown flag', ['org:create', '--name', 'x', '--colour', 'red'], 2, 'USAGE'],
    ['a positional argument', ['org:create', 'Acme'], 2, 'USAGE'],
    ['an unknown role', ['member:add', '--org', ghost, '--user', ghost, '--role', 'superuser'], 2, 'USAGE'],
    ['--expires-days outside 30/60/90/180', ['token:create', '--user', ghost, '--expires-days', '45'], 2, 'USAGE'],
    ['both --user and --project', ['tokens', '--user', ghost, '--project', ghost], 2, 'USAGE'],
    ['an unknown user', ['member:add', '--org', 'ORG', '--user', ghost, '--role', 'member'], 3, 'NOT_FOUND'],
    ['an unknown token id', ['token:revoke', '--id', ghost], 3, 'NOT_FOUND'],
    ['the members of an unknown organization', ['members', '--org', ghost], 3, 'NOT_FOUND'],
    ['the projects of an unknown organization', ['projects', '--org', ghost], 3, 'NOT_FOUND'],
    ['the tokens of an unknown user', ['tokens', '--user', ghost], 3, 'NOT_FOUND'],
    ['an id that is none', ['project:create', '--org', 'nope', '--name', 'P'], 4, 'VALIDATION_ERROR'],
  ])('%s', async (_label, args, code, errorCode) => {
    const org = args.includes('ORG') ? (await cli('org:create', '--name', 'E')).json.id : '';
    const res = await cli(...args.map((a) => (a === 'ORG' ? org : a)));
    expect({ code: res.code, stdout: res.stdout, error: res.json }).toEqual({
      code,
      stdout: '',
      error: { error: { code: errorCode, message: expect.any(String) } },
    });
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a credential that is not the admin one: exit 5', async () => {
    const res = await cliWith({ INTERNAL_AUTH_TOKEN: 'n'.repeat(40) }, 'organizations');
    expect([res.code, res.json.error.code, res.stdout]).toEqual([5, 'UNAUTHORIZED', '']);
    const none = await cliWith({ INTERNAL_AUTH_TOKEN: '' }, 'organizations');
    expect([none.code, none.json.error.code]).toEqual([2, 'USAGE']);
  });

  it('a system that cannot be reached: exit 1', async () => {
    const res = await cliWith({ ASSAY_ADMIN_URL: 'http://127.0.0.1:1' }, 'organizations');
    expect([res.code, res.json.error.code, res.stdout]).toEqual([1, 'SERVICE_UNAVAILABLE', '']);
  });
});
