/**
 * Reads through a service against the single-process baseline (bench/src/baseline-server.ts: the same SQL, the
 * same JSON, one process), on the same database in the same run: `GET /{p}/test-runs?limit=50` over 200 runs at
 * 16 and 50 connections (throughput, p99) and at one connection (p50). Goals (issue 19): ≥ 0.7× the baseline's
 * throughput, p99 ≤ 1.5× its p99, p50 at one connection ≤ 2× its p50. autocannon drives both.
 *
 *   make bench BENCH=reads      (BENCH_SECONDS=10 per measurement)
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { Admin, Api, NODE_FLAGS } from '@assay/testkit';
import { cpuMeter, pidGroup, postgresGroup, redisGroup, type CpuGroup } from './cpu';
import { benchSystem } from './lib';

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU milliseconds per request of each process group (cpu.ts). */
  cpu: Record<string, number>;
}

async function load(
  target: { url: string; headers?: Record<string, string>; cpu: CpuGroup[] },
  connections: number,
  seconds: number,
): Promise<Figures> {
  const meter = cpuMeter(target.cpu);
  const r = await autocannon({ url: target.url, connections, duration: seconds, headers: target.headers ?? {} });
  const used = meter();
  const errors = r.errors + r.timeouts + r.non2xx;
  const n = Math.max(1, r.requests.total);
  const cpu = Object.fromEntries(Object.entries(used).map(([k, ms]) => [k, ms / n]));
  return { perSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors, cpu };
}

const cpuTotal = (f: Figures) => Object.values(f.cpu).reduce((a, b) => a + b, 0);
const cpuParts = (f: Figures) =>
  Object.entries(f.cpu)
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(', ');

async function startBaseline(databaseUrl: string, publicUrl: string): Promise<{ url: string; pid?: number; stop: () => void }> {
  const child = spawn(process.execPath, [...NODE_FLAGS, path.join(__dirname, 'baseline-server.js')], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, PUBLIC_UI_URL: publicUrl, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.kill('SIGTERM') };
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

export async function run(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const bench = await benchSystem({ gateway: { RATE_LIMITS: 'reads=100000000,writes=100000000,ip=100000000,ingest=100000000' } });
  const baseline = await startBaseline(bench.infra.env.DATABASE_URL, bench.system.gatewayUrl);
  try {
    const admin = new Admin(bench.system.adminUrl, bench.system.internalToken);
    const t = await admin.tenant('owner');
    const api = new Api(bench.system.gatewayUrl, t.token);
    for (let i = 0; i < 200; i++) {
      const started = await api.post(`/api/v1/ingest/${t.projectId}/runs`, {
        metadata: { branch: i % 2 ? 'main' : 'dev' },
        totalTests: 10,
      });
      if (started.status !== 201) throw new Error(`start: ${started.status} ${started.text}`);
      await api.post(`/api/v1/ingest/${t.projectId}/runs/${started.body.data.runId}/finish`, {});
    }
    const path_ = `/api/v1/public/${t.projectId}/test-runs?limit=50`;
    const postgres = postgresGroup(Number(new URL(bench.infra.env.DATABASE_URL).port));
    const pid = (name: string) => pidGroup(name, bench.system.processes.get(name)?.child.pid);
    const assay = {
      url: `${bench.system.gatewayUrl}${path_}`,
      headers: { authorization: `Bearer ${t.token}` },
      cpu: [pid('gateway'), pid('runs'), pid('identity'), postgres, redisGroup(Number(new URL(bench.infra.env.REDIS_URL).port))],
    };
    const base = { url: `${baseline.url}${path_}`, headers: {}, cpu: [pidGroup('baseline', baseline.pid), postgres] };
    // Same answer from both (the baseline is the same work, not less).
    const [a, b] = await Promise.all([fetch(assay.url, { headers: assay.headers }), fetch(base.url)]);
    const [aj, bj] = [(await a.json()) as { data: unknown[] }, (await b.json()) as { data: unknown[] }];
    if (JSON.stringify(aj.data) !== JSON.stringify(bj.data))
      throw new Error(`the baseline answers otherwise than Assay:\n${JSON.stringify(aj.data[0])}\n${JSON.stringify(bj.data[0])}`);
    await load(assay, 16, 3);
    await load(base, 16, 3);

    console.log(`GET /{p}/test-runs?limit=50, 200 runs, ${seconds} s per figure (autocannon)`);
    console.log("CPU ms/request: every process of the path (Postgres backends and Redis included), from /proc; the machine's");
    console.log('other load does not change it, and on a CPU-bound machine throughput goes as its inverse.');
    console.log(
      '| connections | Assay req/s | baseline req/s | ratio | Assay p99 | baseline p99 | ratio | Assay CPU ms/req | baseline | ratio |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    const parts: string[] = [];
    for (const c of [16, 50]) {
      const bf = await load(base, c, seconds);
      const af = await load(assay, c, seconds);
      console.log(
        `| ${c} | ${af.perSecond.toFixed(0)} | ${bf.perSecond.toFixed(0)} | ${ratio(af.perSecond, bf.perSecond)} | ${af.p99} ms | ${bf.p99} ms | ${ratio(af.p99, bf.p99)} | ` +
          `${cpuTotal(af).toFixed(2)} | ${cpuTotal(bf).toFixed(2)} | ${ratio(cpuTotal(bf), cpuTotal(af))} |` +
          (af.errors + bf.errors > 0 ? ` errors ${af.errors}/${bf.errors}` : ''),
      );
      parts.push(`${c} connections: Assay ${cpuParts(af)}; baseline ${cpuParts(bf)}`);
    }
    const b1 = await load(base, 1, seconds);
    const a1 = await load(assay, 1, seconds);
    console.log(`| 1 (p50) | ${a1.p50} ms | ${b1.p50} ms | ${ratio(a1.p50, b1.p50)} | | | | | | |`);
    console.log(`CPU ms/request by process: ${parts.join(' | ')}`);
  } finally {
    baseline.stop();
    await bench.close();
  }
}
