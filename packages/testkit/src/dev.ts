/**
 * `make up` / `make down` for a laptop: the infrastructure (scripts/infra), then every service and the
 * gateway as background processes on the default ports (logs and pid files under .data/), a demo
 * organization, user, project and token (kept in .data/demo.json, re-created if the database lost them),
 * and one curl to try. `down` stops everything `up` started.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Role } from '@assay/proto/assay/identity/v1/identity_pb';
import { Admin } from './fixtures';
import { Api } from './http';
import { INFRA_SCRIPT, REPO_ROOT } from './paths';
import { startSystem } from './system';
import { addressEnv, DEFAULT_PORTS, GATEWAY, SERVICES } from './topology';
import type { InfraEnv } from './infra';

const run = promisify(execFile);
const DATA_DIR = process.env.ASSAY_DATA_DIR ?? path.join(REPO_ROOT, '.data');
const RUN_DIR = path.join(DATA_DIR, 'run');
const LOG_DIR = path.join(DATA_DIR, 'logs');
const LOCAL_ENV = path.join(DATA_DIR, 'local.env');
const DEMO_FILE = path.join(DATA_DIR, 'demo.json');
const PROCESS_NAMES = [...SERVICES.map((s) => s.name), GATEWAY.name];

const say = (msg: string) => process.stderr.write(`[assay] ${msg}\n`);

function readEnvFile(file: string): Record<string, string> {
  if (!fs.existsSync(file)) return {};
  return Object.fromEntries(
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((l) => /^([A-Z0-9_]+)=(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function runningPids(): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of PROCESS_NAMES) {
    const file = path.join(RUN_DIR, `${name}.pid`);
    if (!fs.existsSync(file)) continue;
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    if (pid > 0 && pidAlive(pid)) out.set(name, pid);
    else fs.rmSync(file, { force: true });
  }
  return out;
}

async function stopProcesses(): Promise<void> {
  const pids = runningPids();
  // Gateway first, then services in reverse start order.
  for (const name of [...PROCESS_NAMES].reverse()) {
    const pid = pids.get(name);
    if (!pid) continue;
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 15000;
    while (pidAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(path.join(RUN_DIR, `${name}.pid`), { force: true });
    say(`stopped ${name} (pid ${pid})`);
  }
}

async function ensureDemo(api: Api, admin: Admin): Promise<{ projectId: string; token: string }> {
  if (fs.existsSync(DEMO_FILE)) {
    const demo = JSON.parse(fs.readFileSync(DEMO_FILE, 'utf8')) as { projectId: string; token: string };
    const res = await api.withToken(demo.token).get(`/${demo.projectId}/token-info`);
    if (res.status === 200) return demo;
    say('the saved demo token no longer works (database reset?); seeding again');
  }
  const orgId = await admin.org('Demo organization');
  const projectId = await admin.project(orgId, 'Demo project');
  const userId = (await admin.rpc.createUser({ email: 'demo@assay.local', name: 'Demo User' })).id;
  await admin.rpc.addMember({ orgId, userId, role: Role.OWNER });
  const token = (await admin.token(userId, { projects: [projectId] })).token;
  const demo = { orgId, userId, projectId, token };
  fs.writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

async function up(): Promise<void> {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  say('starting infrastructure (Postgres, Redis, Kafka)');
  await run('bash', [INFRA_SCRIPT, 'up'], { env: { ...process.env, ASSAY_DATA_DIR: DATA_DIR }, maxBuffer: 16 * 1024 * 1024 });
  const infra = readEnvFile(path.join(DATA_DIR, 'infra.env')) as unknown as InfraEnv;

  // The internal token is generated once per data folder and kept for the admin CLI; so is the key that
  // encrypts webhook signing secrets (a new key would make the stored ones unreadable).
  const local = readEnvFile(LOCAL_ENV);
  const internalToken = local.INTERNAL_AUTH_TOKEN ?? randomBytes(24).toString('hex');
  const secretsKey = local.SECRETS_KEY ?? randomBytes(32).toString('hex');
  const localEnv = {
    INTERNAL_AUTH_TOKEN: internalToken,
    SECRETS_KEY: secretsKey,
    ASSAY_ADMIN_URL: `http://127.0.0.1:${DEFAULT_PORTS.gateway.adminPort}`,
    ...addressEnv(DEFAULT_PORTS),
  };
  fs.writeFileSync(
    LOCAL_ENV,
    Object.entries(localEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
    { mode: 0o600 },
  );

  const gatewayUrl = `http://127.0.0.1:${DEFAULT_PORTS.gateway.port}`;
  if (runningPids().size === PROCESS_NAMES.length) {
    say('services already running');
  } else {
    await stopProcesses();
    say('running migrations and starting services');
    const system = await startSystem({
      infra,
      logDir: LOG_DIR,
      ports: DEFAULT_PORTS,
      internalToken,
      secretsKey,
      detached: true,
      env: { PUBLIC_UI_URL: gatewayUrl },
    });
    for (const [name, p] of system.processes) {
      fs.writeFileSync(path.join(RUN_DIR, `${name}.pid`), String(p.child.pid));
      p.child.unref();
    }
  }

  const api = new Api(gatewayUrl);
  const demo = await ensureDemo(api, new Admin(localEnv.ASSAY_ADMIN_URL, internalToken));
  const curl = `curl -s -H "Authorization: Bearer ${demo.token}" ${gatewayUrl}/api/v1/public/${demo.projectId}/token-info`;
  process.stdout.write(
    [
      '',
      'Assay is up.',
      `  Gateway:    ${gatewayUrl}   (API reference: ${gatewayUrl}/docs)`,
      `  Project id: ${demo.projectId}`,
      `  Token:      ${demo.token}`,
      `  Logs:       ${LOG_DIR}`,
      '',
      'Try:',
      `  ${curl}`,
      '',
      'Admin CLI: npm run admin -- <command>   Stop everything: make down',
      '',
    ].join('\n'),
  );
}

async function down(): Promise<void> {
  await stopProcesses();
  say('stopping infrastructure');
  await run('bash', [INFRA_SCRIPT, 'down'], { env: { ...process.env, ASSAY_DATA_DIR: DATA_DIR }, maxBuffer: 16 * 1024 * 1024 });
  say('everything stopped');
}

async function status(): Promise<void> {
  const pids = runningPids();
  for (const name of PROCESS_NAMES)
    process.stdout.write(`${name.padEnd(16)} ${pids.has(name) ? `running (pid ${pids.get(name)})` : 'stopped'}\n`);
}

const commands: Record<string, () => Promise<void>> = { up, down, status };
const command = commands[process.argv[2] ?? ''];
if (!command) {
  process.stderr.write('usage: dev.js up|down|status\n');
  process.exit(2);
}
command().catch((err) => {
  process.stderr.write(`[assay] failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
