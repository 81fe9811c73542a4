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
import { seedDemoManual } from './demo/manual';
import { seedDemoRuns } from './demo/runs';
import { Admin } from './fixtures';
import { Api } from './http';
import { INFRA_SCRIPT, REPO_ROOT } from './paths';
import { startSystem } from './system';
import { ADMIN, addressEnv, DEFAULT_PORTS, GATEWAY, newCredentials, PROCESSES, SERVICES, settingNames, type Credentials } from './topology';
import type { InfraEnv } from './infra';

const run = promisify(execFile);
const DATA_DIR = process.env.ASSAY_DATA_DIR ?? path.join(REPO_ROOT, '.data');
const RUN_DIR = path.join(DATA_DIR, 'run');
const LOG_DIR = path.join(DATA_DIR, 'logs');
const LOCAL_ENV = path.join(DATA_DIR, 'local.env');
const DEMO_FILE = path.join(DATA_DIR, 'demo.json');
/** Where .data/local.env keeps a process's internal credential. */
const credentialVar = (name: string) => `CREDENTIAL_${name.toUpperCase().replace(/-/g, '_')}`;

/** The caller's settings the running processes were started with (a different set restarts them). */
const SETTINGS_FILE = path.join(RUN_DIR, 'settings.json');
const PROCESS_NAMES = [...SERVICES.map((s) => s.name), GATEWAY.name];

/**
 * Settings `make up` owns, whatever the caller's environment says: the ports and addresses of its processes
 * (fixed, see DEFAULT_PORTS), the generated secrets kept in .data/local.env (each process's INTERNAL_AUTH_TOKEN
 * and the INTERNAL_CALLERS made from them, SECRETS_KEY),
 * and the infrastructure URLs, which reach the processes through scripts/infra (DATABASE_URL, REDIS_URL and
 * KAFKA_BROKERS set by the caller mean "use this one instead of starting one").
 */
const OWNED_SETTINGS = new Set([
  'PORT',
  'METRICS_PORT',
  'RPC_PORT',
  'HTTP_PORT',
  'INTERNAL_AUTH_TOKEN',
  'INTERNAL_CALLERS',
  'SECRETS_KEY',
  'DATABASE_URL',
  'REDIS_URL',
  'KAFKA_BROKERS',
  ...Object.keys(addressEnv(DEFAULT_PORTS)),
]);

/** Every setting of any process that the caller set (and `make up` does not own), with who reads it. */
function callerSettings(): { env: Record<string, string>; readers: Map<string, string[]> } {
  const env: Record<string, string> = {};
  const readers = new Map<string, string[]>();
  for (const proc of PROCESSES) {
    for (const name of settingNames(proc.name)) {
      const value = process.env[name];
      if (OWNED_SETTINGS.has(name) || value === undefined || value === '') continue;
      env[name] = value;
      readers.set(name, [...(readers.get(name) ?? []), proc.name]);
    }
  }
  return { env, readers };
}

const DEMO_EMAIL = 'demo@assay.local';
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

/** Linux process state: gone, a zombie (exited, waiting for its parent to collect it) or alive. */
function processState(pid: number): 'gone' | 'zombie' | 'alive' {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 3, after the command name in parentheses (which may itself hold spaces or parentheses).
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z' ? 'zombie' : 'alive';
  } catch {
    return 'gone';
  }
}

function runningPids(): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of PROCESS_NAMES) {
    const file = path.join(RUN_DIR, `${name}.pid`);
    if (!fs.existsSync(file)) continue;
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    if (pid > 0 && processState(pid) === 'alive') out.set(name, pid);
    else fs.rmSync(file, { force: true });
  }
  return out;
}

/** Signals the process group (each process was started as the leader of its own), else the process. */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until none of `pids` is alive; true when they all exited in time. */
async function exitedWithin(pids: number[], ms: number, state: (pid: number) => string = processState): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (pids.some((pid) => state(pid) === 'alive')) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/**
 * SIGTERM, a bounded wait (the processes drain within SHUTDOWN_GRACE_MS), then SIGKILL; returns only once
 * every one has exited. Exited processes are then given a moment to be collected by their parent (init, for
 * processes whose starter has gone), so `ps` right after `make down` shows none of them.
 */
async function terminate(entries: [string, number][], graceMs = 15000): Promise<void> {
  if (entries.length === 0) return;
  const pids = entries.map(([, pid]) => pid);
  for (const pid of pids) signal(pid, 'SIGTERM');
  if (!(await exitedWithin(pids, graceMs))) {
    for (const [name, pid] of entries) {
      if (processState(pid) !== 'alive') continue;
      say(`${name} (pid ${pid}) did not stop within ${graceMs / 1000} s; killing it`);
      signal(pid, 'SIGKILL');
    }
    if (!(await exitedWithin(pids, 5000)))
      throw new Error(`processes survived SIGKILL: ${pids.filter((p) => processState(p) === 'alive').join(', ')}`);
  }
  await exitedWithin(pids, 5000, (pid) => (processState(pid) === 'gone' ? 'gone' : 'alive'));
  for (const [name, pid] of entries) {
    fs.rmSync(path.join(RUN_DIR, `${name}.pid`), { force: true });
    say(`stopped ${name} (pid ${pid})`);
  }
}

async function stopProcesses(): Promise<void> {
  const pids = runningPids();
  // The gateway first, so no request reaches a stopping service; then every service at once.
  await terminate([...pids].filter(([name]) => name === GATEWAY.name));
  await terminate([...pids].filter(([name]) => name !== GATEWAY.name));
  fs.rmSync(SETTINGS_FILE, { force: true });
}

interface Demo {
  orgId: string;
  userId: string;
  projectId: string;
  token: string;
}

async function ensureDemo(api: Api, admin: Admin, gatewayUrl: string): Promise<Demo> {
  if (fs.existsSync(DEMO_FILE)) {
    const demo = JSON.parse(fs.readFileSync(DEMO_FILE, 'utf8')) as Demo;
    const res = await api.withToken(demo.token).get(`/${demo.projectId}/token-info`);
    if (res.status === 200) return demo;
    say('the saved demo token no longer works (database reset?); seeding again');
  }
  const orgId = await admin.org('Demo organization');
  const projectId = await admin.project(orgId, 'Demo project');
  const userId = (await admin.rpc.createUser({ email: DEMO_EMAIL, name: 'Demo User' })).id;
  await admin.rpc.addMember({ orgId, userId, role: Role.OWNER });
  const token = (await admin.token(userId, { projects: [projectId] })).token;
  // Something to look at in the web app: a history of automated runs (the newest still running) and manual testing.
  say('seeding the demo project (12 runs, manual test cases, a release, a session and a manual run)');
  await seedDemoRuns(gatewayUrl, token, projectId);
  await seedDemoManual(gatewayUrl, token, projectId);
  const demo = { orgId, userId, projectId, token };
  fs.writeFileSync(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

async function up(): Promise<void> {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  say('starting infrastructure (Postgres, Redis, Kafka)');
  await run('bash', [INFRA_SCRIPT, 'up'], { env: { ...process.env, ASSAY_DATA_DIR: DATA_DIR }, maxBuffer: 16 * 1024 * 1024 });
  const infra = readEnvFile(path.join(DATA_DIR, 'infra.env')) as unknown as InfraEnv;

  // The internal credentials (one per process, one for the admin CLI) are generated once per data folder and
  // kept, like the key that encrypts webhook signing secrets (a new key would make the stored ones unreadable).
  // The admin CLI finds its credential (INTERNAL_AUTH_TOKEN) and the addresses here.
  const local = readEnvFile(LOCAL_ENV);
  const credentials: Credentials = Object.fromEntries(
    Object.entries(newCredentials()).map(([name, fresh]) => [name, local[credentialVar(name)] ?? fresh]),
  );
  const secretsKey = local.SECRETS_KEY ?? randomBytes(32).toString('hex');
  const localEnv = {
    INTERNAL_AUTH_TOKEN: credentials[ADMIN]!,
    SECRETS_KEY: secretsKey,
    ASSAY_ADMIN_URL: addressEnv(DEFAULT_PORTS).IDENTITY_URL!,
    ...addressEnv(DEFAULT_PORTS),
    ...Object.fromEntries(Object.entries(credentials).map(([name, token]) => [credentialVar(name), token])),
  };
  fs.writeFileSync(
    LOCAL_ENV,
    Object.entries(localEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n',
    { mode: 0o600 },
  );

  const gatewayUrl = `http://127.0.0.1:${DEFAULT_PORTS.gateway.port}`;
  // The caller's settings reach the processes that read them (`WEBHOOK_ALLOW_PRIVATE_TARGETS=true make up`).
  const caller = callerSettings();
  const wanted = JSON.stringify(caller.env);
  const running = fs.existsSync(SETTINGS_FILE) ? fs.readFileSync(SETTINGS_FILE, 'utf8') : undefined;
  if (runningPids().size === PROCESS_NAMES.length && running === wanted) {
    say('services already running');
  } else {
    if (runningPids().size > 0) say(running === wanted ? 'some processes are not running; restarting' : 'settings changed; restarting');
    await stopProcesses();
    for (const [name, procs] of caller.readers) say(`${name} from your environment → ${procs.join(', ')}`);
    say('running migrations and starting services');
    const system = await startSystem({
      infra,
      logDir: LOG_DIR,
      ports: DEFAULT_PORTS,
      credentials,
      secretsKey,
      detached: true,
      // Artifacts on the filesystem under .data (one machine, zero set-up); the caller may choose S3 instead.
      env: { PUBLIC_UI_URL: gatewayUrl, ARTIFACT_DIR: path.join(DATA_DIR, 'artifacts'), ...caller.env },
    });
    for (const [name, p] of system.processes) {
      fs.writeFileSync(path.join(RUN_DIR, `${name}.pid`), String(p.child.pid));
      p.child.unref();
    }
    fs.writeFileSync(SETTINGS_FILE, wanted, { mode: 0o600 });
  }

  const api = new Api(gatewayUrl);
  const demo = await ensureDemo(api, new Admin(localEnv.ASSAY_ADMIN_URL, localEnv.INTERNAL_AUTH_TOKEN), gatewayUrl);
  const curl = `curl -s -H "Authorization: Bearer ${demo.token}" ${gatewayUrl}/api/v1/public/${demo.projectId}/token-info`;
  // A one-time link (24 h) that signs the demo user into the web app: a new one on every `make up`.
  const signIn = await new Admin(localEnv.ASSAY_ADMIN_URL, localEnv.INTERNAL_AUTH_TOKEN).rpc.createSignInLink({ userId: demo.userId });
  process.stdout.write(
    [
      '',
      'Assay is up.',
      `  Web app:    ${signIn.url}`,
      `              (a one-time sign-in link for the demo user ${DEMO_EMAIL}; \`make up\` prints a new one each time)`,
      `  Gateway:    ${gatewayUrl}   (API reference: ${gatewayUrl}/docs)`,
      `  Project id: ${demo.projectId}`,
      `  Token:      ${demo.token}`,
      `  Logs:       ${LOG_DIR}`,
      '',
      'Try:',
      `  ${curl}`,
      '',
      'Admin CLI: npm run admin -- <command> (npm run admin -- --help lists them)   Stop everything: make down',
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
