/**
 * Runtime-stage smoke test: for each of the seven processes, what its image's runtime stage holds is assembled
 * in a temporary folder by the script the Dockerfile runs (scripts/image/stage.sh: the production-only install
 * of that workspace, its dist/ and migrations, nothing hoisted from the development tree), then the process is
 * started from there with NODE_ENV=production against the test infrastructure. It must apply its migrations,
 * reach readiness and stop cleanly on SIGTERM. The identity stage also holds the admin CLI as `bin/assay` (on
 * the image's PATH): it prints its help and lists through that very process.
 *
 * The negative case reproduces the bug this test exists for: @assay/config importing @sinclair/typebox without
 * declaring it (package.json and lockfile agree, so `npm ci` succeeds). The process must then fail to start
 * with "Cannot find module '@sinclair/typebox'", and this test must see it.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import {
  ADMIN,
  addressEnv,
  createDatabase,
  credentialEnv,
  envForProcess,
  freePorts,
  MALLOC_ENV,
  nodeFlagsOf,
  REPO_ROOT,
  SHARED_GATEWAY_RATE_LIMITS_ENV,
  testAdmin,
  testSystem,
  waitUntil,
} from '@assay/testkit';

const run = promisify(execFile);

/** The image's CMD and ENV: each process here starts exactly as its container does. */
const DOCKERFILE = fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
const IMAGE_CMD: string[] = JSON.parse(/^CMD (\[.*\])$/m.exec(DOCKERFILE)![1]!);
const IMAGE_ENV: Record<string, string> = Object.fromEntries(
  [...DOCKERFILE.matchAll(/^ENV (.*)$/gm)].flatMap((m) =>
    m[1]!.split(/\s+/).map((kv) => {
      const at = kv.indexOf('=');
      return [kv.slice(0, at), kv.slice(at + 1).replace(/^"(.*)"$/, '$1')];
    }),
  ),
);
const SKAFFOLD_ARTIFACTS: { docker: { buildArgs: Record<string, string> } }[] = YAML.parse(
  fs.readFileSync(path.join(REPO_ROOT, 'skaffold.yaml'), 'utf8'),
).build.artifacts;
/** The image's NODE_OPTIONS for `workspace`: the Dockerfile's, with the SEMI_SPACE_MB skaffold.yaml builds it with. */
function imageNodeOptions(workspace: string): string {
  const args = SKAFFOLD_ARTIFACTS.find((a) => a.docker.buildArgs.WORKSPACE === workspace)!.docker.buildArgs;
  const semiSpace = args.SEMI_SPACE_MB ?? /^ARG SEMI_SPACE_MB=(\d+)$/m.exec(DOCKERFILE)![1]!;
  return IMAGE_ENV.NODE_OPTIONS!.replace('${SEMI_SPACE_MB}', semiSpace);
}
const STAGE = path.join(REPO_ROOT, 'scripts', 'image', 'stage.sh');
jest.setTimeout(180_000);

const PROCESSES = [
  { name: 'gateway', workspace: 'gateway' },
  { name: 'identity', workspace: 'services/identity' },
  { name: 'manual-testing', workspace: 'services/manual-testing' },
  { name: 'runs', workspace: 'services/runs' },
  { name: 'analytics', workspace: 'services/analytics' },
  { name: 'webhooks', workspace: 'services/webhooks' },
  { name: 'reports', workspace: 'services/reports' },
];

const stage = (...args: string[]) => run('bash', [STAGE, ...args], { maxBuffer: 16 * 1024 * 1024 });

/** The runtime stage of `workspace` in a new temporary folder; `edit` may change the manifests before the install. */
async function assemble(workspace: string, edit?: (dir: string) => void): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-runtime-stage-'));
  await stage('manifests', REPO_ROOT, dir);
  edit?.(dir);
  await stage('install', workspace, dir);
  await stage('artifacts', workspace, REPO_ROOT, dir);
  return dir;
}

let databaseUrl: string;
beforeAll(async () => {
  databaseUrl = await createDatabase(testSystem().infra.DATABASE_URL, 'assay_image');
});

/** Every setting a process needs, on free ports, pointed at the test infrastructure and the shared services. */
async function environment(name: string): Promise<{ env: NodeJS.ProcessEnv; readyUrl: string }> {
  const s = testSystem();
  const [a, b, c] = await freePorts(3);
  const suffix = randomBytes(4).toString('hex');
  const full: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: os.tmpdir(),
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    ...s.infra,
    DATABASE_URL: databaseUrl,
    ...addressEnv(s.ports),
    ...credentialEnv(name, s.credentials, [ADMIN]),
    SECRETS_KEY: randomBytes(32).toString('hex'),
    // Own consumer groups, so these copies never take partitions from the shared system's consumers.
    ANALYTICS_CONSUMER_GROUP: `analytics-image-${suffix}`,
    WEBHOOK_CONSUMER_GROUP: `webhooks-image-${suffix}`,
    // Every test comes from 127.0.0.1 through the shared Redis: the shared gateway's raised limits, not the spec's.
    RATE_LIMITS: SHARED_GATEWAY_RATE_LIMITS_ENV,
    PORT: String(a),
    METRICS_PORT: String(c),
    RPC_PORT: String(a),
    HTTP_PORT: String(b),
  };
  // The gateway answers /readyz on its public port; a service on its HTTP port.
  return { env: envForProcess(name, full), readyUrl: `http://127.0.0.1:${name === 'gateway' ? a : b}/readyz` };
}

interface Outcome {
  ready: boolean;
  exitCode: number | null;
  log: string;
}

/** Migrates, starts, waits for readiness (or an early exit), then stops the process with SIGTERM. */
async function startFrom(
  dir: string,
  workspace: string,
  name: string,
  whileReady?: (readyUrl: string, env: NodeJS.ProcessEnv, dir: string) => Promise<void>,
): Promise<Outcome> {
  const { env, readyUrl } = await environment(name);
  const cwd = path.join(dir, workspace);
  let log = '';
  // The gateway holds no tables; every service applies its migrations first, as its Helm hook Job does.
  const migrate = await (name === 'gateway' ? Promise.resolve() : run(process.execPath, ['dist/main.js', 'migrate'], { cwd, env })).then(
    () => 0,
    (err: { code?: number; stderr?: string }) => {
      log += err.stderr ?? '';
      return err.code ?? 1;
    },
  );
  if (migrate !== 0) return { ready: false, exitCode: migrate, log };
  const child = spawn(process.execPath, IMAGE_CMD.slice(1), {
    cwd,
    env: { ...env, NODE_OPTIONS: imageNodeOptions(workspace) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let ready = false;
  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) return true;
        const res = await fetch(readyUrl, { signal: AbortSignal.timeout(2000) });
        ready = res.status === 200;
        return ready;
      },
      60_000,
      () => `${name} did not become ready:\n${log}`,
    );
    if (ready && whileReady) await whileReady(readyUrl, env, dir);
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
  }
  const exitCode = await exited;
  return { ready, exitCode, log };
}

describe('each process starts from its runtime stage alone (NODE_ENV=production)', () => {
  it.each(PROCESSES)("$name: starts node with the test system's V8 flags (memory: service-kit memory.ts)", ({ workspace }) => {
    expect(IMAGE_CMD.at(0)).toBe('node');
    expect(IMAGE_CMD.at(-1)).toBe('dist/main.js');
    const flags = [...imageNodeOptions(workspace).split(' '), ...IMAGE_CMD.slice(1, -1)];
    expect(flags.sort()).toEqual([...nodeFlagsOf(workspace)].sort());
  });

  it("runs with the test system's malloc settings (MALLOC_ENV)", () => {
    expect(IMAGE_ENV).toMatchObject(MALLOC_ENV);
  });

  it.each(PROCESSES)('$name: migrates, reaches readiness and stops cleanly', async ({ name, workspace }) => {
    const dir = await assemble(workspace);
    try {
      // Nothing but production dependencies: no dev tool made it in.
      expect(fs.existsSync(path.join(dir, 'node_modules', 'typescript'))).toBe(false);
      expect(fs.existsSync(path.join(dir, 'node_modules', 'jest'))).toBe(false);
      const outcome = await startFrom(dir, workspace, name, WHILE_READY[name]);
      expect({ ready: outcome.ready, exitCode: outcome.exitCode, log: outcome.ready ? '' : outcome.log }).toEqual({
        ready: true,
        exitCode: 0,
        log: '',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

const WHILE_READY: Record<string, (readyUrl: string, env: NodeJS.ProcessEnv, dir: string) => Promise<void>> = {
  gateway: servesTheWebApp,
  identity: runsTheAdminCli,
};

/** The identity image holds `assay` (the Dockerfile puts /app/bin on PATH): its help, and a list from this process. */
async function runsTheAdminCli(_readyUrl: string, env: NodeJS.ProcessEnv, dir: string): Promise<void> {
  const cliEnv = {
    PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`,
    NODE_ENV: 'production',
    ASSAY_DATA_DIR: '/nonexistent',
    ASSAY_ADMIN_URL: `http://127.0.0.1:${env.RPC_PORT}`,
    INTERNAL_AUTH_TOKEN: testSystem().internalToken,
  };
  const help = await run('assay', ['--help'], { env: cliEnv, cwd: os.tmpdir() });
  expect(help.stdout).toContain('Usage: assay <command>');
  const org = JSON.parse((await run('assay', ['org:create', '--name', 'From the image'], { env: cliEnv })).stdout);
  const listed = JSON.parse((await run('assay', ['organizations', '--limit', '200'], { env: cliEnv })).stdout);
  expect(listed.items).toContainEqual(expect.objectContaining({ id: org.id, name: 'From the image' }));
}

/** The gateway's image holds the built web app: a page answers its document, whose script is served immutably. */
async function servesTheWebApp(readyUrl: string): Promise<void> {
  const base = new URL(readyUrl).origin;
  const page = await fetch(`${base}/projects/p/runs/r`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await page.text();
  const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  expect(script).toBeDefined();
  const asset = await fetch(`${base}${script}`);
  expect(asset.status).toBe(200);
  expect(asset.headers.get('cache-control')).toContain('immutable');
  // Read to the end: an unread body keeps the connection busy, and the gateway's drain would wait for it.
  expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(0);
  // /mcp loads @assay/mcp on its first request: the stage holds it and its dependencies.
  const t = await testAdmin().tenant('viewer');
  const mcp = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'runtime-stage', version: '1' } },
    }),
  });
  expect(mcp.status).toBe(200);
  expect(((await mcp.json()) as { result?: { serverInfo?: { name?: string } } }).result?.serverInfo?.name).toBeDefined();
}

describe('the smoke test catches a dependency a workspace imports but does not declare', () => {
  it('webhooks without undici declared: fails to start with Cannot find module', async () => {
    const dir = await assemble('services/webhooks', (root) => {
      const manifest = path.join(root, 'services', 'webhooks', 'package.json');
      const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8'));
      expect(pkg.dependencies.undici).toBeDefined();
      delete pkg.dependencies.undici;
      fs.writeFileSync(manifest, JSON.stringify(pkg, null, 2));
      // The lockfile agrees with the manifest, as it would when the declaration is forgotten.
      const lockFile = path.join(root, 'package-lock.json');
      const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
      delete lock.packages['services/webhooks'].dependencies.undici;
      fs.writeFileSync(lockFile, JSON.stringify(lock, null, 2));
    });
    try {
      // No other production dependency brings it in.
      expect(fs.existsSync(path.join(dir, 'node_modules', 'undici'))).toBe(false);
      const outcome = await startFrom(dir, 'services/webhooks', 'webhooks');
      expect(outcome.ready).toBe(false);
      expect(outcome.exitCode).not.toBe(0);
      expect(outcome.log).toContain("Cannot find module 'undici'");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
