/**
 * Reads through a service against the single-process baseline (bench/src/baseline-server.ts: the same SQL, the
 * same JSON, one process), on the same database in the same run, for three endpoints, each in its own project
 * seeded through the public API:
 *
 * - `GET /{p}/test-runs?limit=50` over 200 runs;
 * - `GET /{p}/manual-test-cases?limit=50` over 250 cases in 5 suites (3–6 classic steps, some with sub-steps, tags,
 *   custom fields; cases TC-1…TC-30 linked to two automated tests each by an ingested Playwright report): the list
 *   the web app's test-case page and the MCP's list tool read, the spec's richest list item (§2.3);
 * - `GET /{p}/analytics/summary?days=30` over 90 Playwright reports of 300 tests (27,000 results over 30 days,
 *   folded by the analytics consumer): the web app's analytics page. Measured with the analytics answer cache off
 *   (ANALYTICS_READ_CACHE_ENTRIES=0): every finished run bumps the read model's version and so empties it, and
 *   the read path worth measuring is the one that runs the SQL; the baseline has no cache either.
 *
 * For each: throughput and p99 at 16 and 50 connections, p50 at one connection, CPU ms per request of every
 * process (cpu.ts). Goals (issue 19): ≥ 0.7× the baseline's throughput, p99 ≤ 1.5× its p99, p50 at one
 * connection ≤ 2× its p50. autocannon drives both.
 *
 *   make bench BENCH=reads      (BENCH_SECONDS=10 per measurement; BENCH_READS=runs,cases,summary to choose)
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { createRpcClient } from '@assay/service-kit';
import { AnalyticsAdminService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { Admin, Api, NODE_FLAGS, type Tenant } from '@assay/testkit';
import { report, testDefs } from './analytics';
import { cpuMeter, pidGroup, postgresGroup, redisGroup, switchMeter, type CpuGroup } from './cpu';
import { benchSystem, percentile, type BenchSystem } from './lib';
import { addFigure, times } from './summary';

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU milliseconds per request of each process group (cpu.ts). */
  cpu: Record<string, number>;
  /** Context switches per request of each process group: voluntary (a sleep and a wake-up) and involuntary. */
  switches: Record<string, { voluntary: number; involuntary: number }>;
}

export interface Target {
  url: string;
  headers?: Record<string, string>;
  cpu: CpuGroup[];
}

/** One stretch of load on one target: what it answered, over how long, and the CPU each process group used. */
interface Stretch {
  requests: number;
  seconds: number;
  errors: number;
  /** Every 2xx answer's time, ms. */
  latencies: number[];
  /** CPU milliseconds of each process group over the stretch (cpu.ts). */
  cpuMs: Record<string, number>;
  switches: Record<string, { voluntary: number; involuntary: number }>;
}

async function stretch(target: Target, connections: number, seconds: number): Promise<Stretch> {
  const meter = cpuMeter(target.cpu);
  const switched = switchMeter(target.cpu);
  // Without a callback autocannon answers its instance, made thenable (its types say only the promise).
  const running = autocannon({
    url: target.url,
    connections,
    duration: seconds,
    headers: target.headers ?? {},
  }) as Promise<autocannon.Result> & autocannon.Instance;
  // autocannon's histogram keeps whole milliseconds: at one connection 1.4 against 0.9 ms printed as 2 against 1 ms,
  // or as 1 against 0. The percentiles come from every 2xx answer's own time instead.
  const latencies: number[] = [];
  running.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const r = await running;
  return {
    requests: r.requests.total,
    seconds: r.duration,
    errors: r.errors + r.timeouts + r.non2xx,
    latencies,
    cpuMs: meter(),
    switches: switched(),
  };
}

function figuresOf(stretches: Stretch[]): Figures {
  const n = Math.max(
    1,
    stretches.reduce((a, s) => a + s.requests, 0),
  );
  const cpu: Record<string, number> = {};
  for (const s of stretches) for (const [k, ms] of Object.entries(s.cpuMs)) cpu[k] = (cpu[k] ?? 0) + ms / n;
  const switches: Figures['switches'] = {};
  for (const s of stretches)
    for (const [k, c] of Object.entries(s.switches)) {
      const into = (switches[k] ??= { voluntary: 0, involuntary: 0 });
      into.voluntary += c.voluntary / n;
      into.involuntary += c.involuntary / n;
    }
  const latencies = stretches.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const at = (p: number) => Math.round(percentile(latencies, p) * 100) / 100;
  return {
    perSecond: n / stretches.reduce((a, s) => a + s.seconds, 0),
    p50: at(50),
    p99: at(99),
    errors: stretches.reduce((a, s) => a + s.errors, 0),
    cpu,
    switches,
  };
}

/**
 * The baseline and Assay under the same load, taking turns in SLICES stretches each (baseline, Assay, Assay,
 * baseline, …) that add up to `seconds` apiece: this machine's speed drifts over tens of seconds (the baseline
 * alone measured 715–1,119 req/s in four runs of ten seconds), and a drift then falls on both alike.
 */
const SLICES = 5;

export async function compare(base: Target, assay: Target, connections: number, seconds: number): Promise<{ bf: Figures; af: Figures }> {
  const [b, a]: Stretch[][] = [[], []];
  const turns: [Target, Stretch[]][] = [
    [base, b],
    [assay, a],
  ];
  for (let i = 0; i < SLICES; i++)
    for (const [target, into] of i % 2 === 0 ? turns : [...turns].reverse())
      into.push(await stretch(target, connections, seconds / SLICES));
  return { bf: figuresOf(b), af: figuresOf(a) };
}

export const cpuTotal = (f: Figures) => Object.values(f.cpu).reduce((a, b) => a + b, 0);
/** Per process: voluntary + involuntary context switches a request; then their sum over the path. */
const switchParts = (f: Figures) => {
  const all = Object.entries(f.switches);
  const sum = all.reduce((a, [, c]) => a + c.voluntary + c.involuntary, 0);
  return `${all.map(([k, c]) => `${k} ${c.voluntary.toFixed(1)}+${c.involuntary.toFixed(1)}`).join(', ')} = ${sum.toFixed(1)}`;
};
export const cpuParts = (f: Figures) =>
  Object.entries(f.cpu)
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(', ');

/** Starts one of the bench's servers (it prints `listening <port>`), profiled like the system's processes (lib.ts) when BENCH_CPU_PROF is set. */
export async function startServer(script: string, env: Record<string, string>): Promise<{ url: string; pid?: number; stop: () => void }> {
  const child = spawn(process.execPath, [...NODE_FLAGS, path.join(__dirname, script)], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      ...env,
      ...(process.env.BENCH_CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}` } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

export const startBaseline = (databaseUrl: string, publicUrl: string) =>
  startServer('baseline-server.js', { DATABASE_URL: databaseUrl, PUBLIC_UI_URL: publicUrl });

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

async function must(res: Promise<{ status: number; text: string }>, what: string, status = 201): Promise<void> {
  const r = await res;
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
}

async function waitFor(what: string, done: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Uploads a Playwright JSON report (`report()` of analytics.ts) as a CI run would. */
const ingest = (api: Api, projectId: string, body: unknown) =>
  must(
    api.request('POST', `/api/v1/ingest/${projectId}/playwright`, {
      rawBody: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    }),
    'playwright ingestion',
  );

export async function seedRuns(api: Api, t: Tenant): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const started = await api.post(`/api/v1/ingest/${t.projectId}/runs`, { metadata: { branch: i % 2 ? 'main' : 'dev' }, totalTests: 10 });
    if (started.status !== 201) throw new Error(`start: ${started.status} ${started.text}`);
    await api.post(`/api/v1/ingest/${t.projectId}/runs/${started.body.data.runId}/finish`, {});
  }
}

const CASES_PER_SUITE = 50;
const SUITES = ['Checkout', 'Accounts', 'Search', 'Payments', 'Notifications'];
const LINKED_CASES = 30;

async function seedCases(api: Api, t: Tenant): Promise<void> {
  const P = `/${t.projectId}`;
  for (const name of SUITES) await must(api.post(`${P}/manual-test-suites`, { name, description: `${name} flows` }), 'suite');
  const words = 'open the page fill in the form with valid data submit and check the confirmation message appears'.split(' ');
  const text = (i: number, n: number) => Array.from({ length: n }, (_, k) => words[(i + k) % words.length]).join(' ');
  for (let i = 0; i < SUITES.length * CASES_PER_SUITE; i++) {
    const steps = Array.from({ length: 3 + (i % 4) }, (_, s) => ({
      action: text(i + s, 8),
      expectedResult: text(i + s + 3, 6),
      data: s === 0 ? `user-${i}@example.com` : '',
      subSteps: s === 1 ? [{ action: text(i, 5) }, { action: text(i + 1, 5) }] : [],
    }));
    await must(
      api.post(`${P}/manual-test-cases`, {
        title: `${SUITES[i % SUITES.length]}: ${text(i, 6)} #${i}`,
        suiteName: SUITES[i % SUITES.length],
        description: `<p>${text(i, 30)}</p>`,
        preconditions: text(i + 2, 12),
        postconditions: i % 3 ? '' : text(i + 4, 8),
        testStepsDeclarationType: 'Classic',
        steps,
        priority: ['critical', 'high', 'medium', 'low'][i % 4],
        severity: ['blocker', 'critical', 'major', 'normal', 'minor'][i % 5],
        type: ['smoke', 'regression', 'functional', 'e2e'][i % 4],
        tags: ['smoke', 'regression', 'release', 'mobile'].slice(0, 1 + (i % 3)).join(','),
        customFields: { component: SUITES[i % SUITES.length]!.toLowerCase(), owner: `team-${i % 4}` },
      }),
      'case',
    );
  }
  // Automated tests annotated with TC-1…TC-30 (two each): the runs service links them to the cases.
  const defs = testDefs(LINKED_CASES * 2);
  const body = report(defs, Date.now() - 3_600_000, 1);
  for (const s of body.suites)
    for (const spec of s.specs as { title: string; tests: { annotations: unknown[] }[] }[]) {
      const i = Number(spec.title.split(' ')[1]);
      spec.tests[0]!.annotations = [{ type: 'issue', description: `TC-${(i % LINKED_CASES) + 1}` }];
    }
  await ingest(api, t.projectId, { ...body, metadata: { git: { branch: 'main' }, environment: 'ci' } });
  await waitFor('the manual case links', async () => {
    const res = await api.get(`${P}/manual-test-cases?limit=50`);
    return res.body.data.filter((c: { linkedTests: unknown[] }) => c.linkedTests.length === 2).length === LINKED_CASES;
  });
}

const SUMMARY_RUNS = 90;
const SUMMARY_TESTS = 300;

async function seedSummary(api: Api, t: Tenant, bench: BenchSystem): Promise<void> {
  const sys = bench.system;
  const defs = testDefs(SUMMARY_TESTS);
  const branches = ['main', 'main', 'release', 'feature/a', 'feature/b'];
  const now = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 3 }, async () => {
      for (;;) {
        const i = next++;
        if (i >= SUMMARY_RUNS) return;
        const startMs = now - 29.5 * 86_400_000 + (i / SUMMARY_RUNS) * 29.4 * 86_400_000;
        await ingest(api, t.projectId, {
          ...report(defs, startMs, 1000 + i),
          metadata: {
            git: { branch: branches[i % branches.length], commit: { hash: `h${i}`, message: `commit ${i}`, author: `dev${i % 6}` } },
            environment: i % 3 === 0 ? 'production' : 'staging',
            tags: i % 10 === 0 ? ['nightly'] : [],
          },
        });
      }
    }),
  );
  const admin = createRpcClient(AnalyticsAdminService, {
    baseUrl: `http://127.0.0.1:${sys.ports.services.analytics!.rpcPort}`,
    internalToken: sys.internalToken,
    timeoutMs: 60_000,
  });
  await waitFor(
    'the analytics read model',
    async () => Number((await admin.getReadModelStatus({ projectId: t.projectId })).runs) >= SUMMARY_RUNS,
  );
}

interface Endpoint {
  key: string;
  title: string;
  /** The path below /api/v1/public/{projectId}. */
  path: string;
  /** The service process the gateway calls for it. */
  service: string;
  seed(api: Api, t: Tenant, bench: BenchSystem): Promise<void>;
}

const ENDPOINTS: Endpoint[] = [
  { key: 'runs', title: 'GET /{p}/test-runs?limit=50, 200 runs', path: '/test-runs?limit=50', service: 'runs', seed: seedRuns },
  {
    key: 'cases',
    title: `GET /{p}/manual-test-cases?limit=50, ${SUITES.length * CASES_PER_SUITE} cases`,
    path: '/manual-test-cases?limit=50',
    service: 'manual-testing',
    seed: seedCases,
  },
  {
    key: 'summary',
    title: `GET /{p}/analytics/summary?days=30, ${SUMMARY_RUNS} runs × ${SUMMARY_TESTS} tests, answer cache off`,
    path: '/analytics/summary?days=30',
    service: 'analytics',
    seed: seedSummary,
  },
];

/** One endpoint: same answer from both, a warm-up, then the table (16 and 50 connections, p50 at 1, CPU). */
async function measure(
  e: Endpoint,
  t: Tenant,
  bench: BenchSystem,
  baseline: { url: string; pid?: number },
  seconds: number,
): Promise<string> {
  const postgres = postgresGroup(Number(new URL(bench.infra.env.DATABASE_URL).port));
  const pid = (name: string) => pidGroup(name, bench.system.processes.get(name)?.child.pid);
  const path_ = `/api/v1/public/${t.projectId}${e.path}`;
  const assay: Target = {
    url: `${bench.system.gatewayUrl}${path_}`,
    headers: { authorization: `Bearer ${t.token}` },
    cpu: [pid('gateway'), pid(e.service), pid('identity'), postgres, redisGroup(Number(new URL(bench.infra.env.REDIS_URL).port))],
  };
  const base: Target = { url: `${baseline.url}${path_}`, headers: {}, cpu: [pidGroup('baseline', baseline.pid), postgres] };
  // Same answer from both (the baseline is the same work, not less).
  const [a, b] = await Promise.all([fetch(assay.url, { headers: assay.headers }), fetch(base.url)]);
  const [at, bt] = [await a.text(), await b.text()];
  const [ad, bd] = [JSON.stringify((JSON.parse(at) as { data: unknown }).data), JSON.stringify((JSON.parse(bt) as { data: unknown }).data)];
  if (a.status !== 200 || ad !== bd)
    throw new Error(`${e.title}: the baseline answers otherwise than Assay (${a.status}):\n${ad.slice(0, 2000)}\n${bd.slice(0, 2000)}`);
  await stretch(assay, 16, 3);
  await stretch(base, 16, 3);

  console.log(`\n${e.title}, ${(at.length / 1024).toFixed(1)} KiB, ${seconds} s per figure in ${SLICES} turns (autocannon)`);
  console.log(
    '| connections | Assay req/s | baseline req/s | ratio | Assay p99 | baseline p99 | ratio | Assay CPU ms/req | baseline | ratio |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  const parts: string[] = [];
  const switchLines: string[] = [];
  const short: string[] = [];
  for (const c of [16, 50]) {
    const { bf, af } = await compare(base, assay, c, seconds);
    console.log(
      `| ${c} | ${af.perSecond.toFixed(0)} | ${bf.perSecond.toFixed(0)} | ${ratio(af.perSecond, bf.perSecond)} | ${af.p99} ms | ${bf.p99} ms | ${ratio(af.p99, bf.p99)} | ` +
        `${cpuTotal(af).toFixed(2)} | ${cpuTotal(bf).toFixed(2)} | ${ratio(cpuTotal(bf), cpuTotal(af))} |` +
        (af.errors + bf.errors > 0 ? ` errors ${af.errors}/${bf.errors}` : ''),
    );
    parts.push(`${c} connections: Assay ${cpuParts(af)}; baseline ${cpuParts(bf)}`);
    switchLines.push(`${c} connections: Assay ${switchParts(af)}; baseline ${switchParts(bf)}`);
    addFigure({
      bench: 'reads',
      figure: `${e.key}, ${c} connections: req/s (p99)`,
      assay: `${af.perSecond.toFixed(0)} (${af.p99} ms)`,
      baseline: `${bf.perSecond.toFixed(0)} (${bf.p99} ms)`,
      ratio: `${times(af.perSecond, bf.perSecond)} (p99 ${times(af.p99, bf.p99)})`,
      goal: '≥ 0.7× (p99 ≤ 1.5×)',
      met: af.perSecond >= 0.7 * bf.perSecond && af.p99 <= 1.5 * bf.p99,
    });
    short.push(
      `${c}: ${ratio(af.perSecond, bf.perSecond)} (${af.perSecond.toFixed(0)} vs ${bf.perSecond.toFixed(0)}), p99 ${ratio(af.p99, bf.p99)}`,
    );
  }
  const { bf: b1, af: a1 } = await compare(base, assay, 1, seconds);
  console.log(
    `| 1 (p50) | ${a1.p50} ms | ${b1.p50} ms | ${ratio(a1.p50, b1.p50)} | | | | ${cpuTotal(a1).toFixed(2)} | ${cpuTotal(b1).toFixed(2)} | ${ratio(cpuTotal(b1), cpuTotal(a1))} |`,
  );
  parts.push(`1 connection: Assay ${cpuParts(a1)}; baseline ${cpuParts(b1)}`);
  switchLines.push(`1 connection: Assay ${switchParts(a1)}; baseline ${switchParts(b1)}`);
  addFigure({
    bench: 'reads',
    figure: `${e.key}, 1 connection: p50`,
    assay: `${a1.p50} ms`,
    baseline: `${b1.p50} ms`,
    ratio: times(a1.p50, b1.p50),
    goal: '≤ 2×',
    met: a1.p50 <= 2 * b1.p50,
  });
  console.log(`CPU ms/request by process: ${parts.join(' | ')}`);
  console.log(`context switches/request by process, voluntary+involuntary: ${switchLines.join(' | ')}`);
  return `${e.key}: ${short.join('; ')}; p50 at 1: ${a1.p50} vs ${b1.p50} ms`;
}

export async function run(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const chosen = (process.env.BENCH_READS ?? ENDPOINTS.map((e) => e.key).join(',')).split(',');
  const bench = await benchSystem({
    gateway: { RATE_LIMITS: 'reads=100000000,writes=100000000,ip=100000000,ingest=100000000' },
    analytics: { ANALYTICS_READ_CACHE_ENTRIES: '0' },
  });
  const baseline = await startBaseline(bench.infra.env.DATABASE_URL, bench.system.gatewayUrl);
  try {
    const admin = new Admin(bench.system.adminUrl, bench.system.internalToken);
    const endpoints = ENDPOINTS.filter((e) => chosen.includes(e.key));
    const tenants = new Map<Endpoint, Tenant>();
    for (const e of endpoints) {
      const t = await admin.tenant('owner');
      await e.seed(new Api(bench.system.gatewayUrl, t.token), t, bench);
      tenants.set(e, t);
    }
    console.log("CPU ms/request: every process of the path (Postgres backends and Redis included), from /proc; the machine's");
    console.log('other load does not change it, and on a CPU-bound machine throughput goes as its inverse.');
    const lines: string[] = [];
    for (const e of endpoints) lines.push(await measure(e, tenants.get(e)!, bench, baseline, seconds));
    console.log(`\nthroughput ratio (Assay vs baseline req/s), p99 ratio, p50 at one connection:\n${lines.join('\n')}`);
  } finally {
    baseline.stop();
    await bench.close();
  }
}
