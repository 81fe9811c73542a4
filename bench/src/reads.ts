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
import { benchSystem } from './lib';

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(url: string, connections: number, seconds: number, headers: Record<string, string> = {}): Promise<Figures> {
  const r = await autocannon({ url, connections, duration: seconds, headers });
  const errors = r.errors + r.timeouts + r.non2xx;
  return { perSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors };
}

async function startBaseline(databaseUrl: string, publicUrl: string): Promise<{ url: string; stop: () => void }> {
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
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
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
    const assay = { url: `${bench.system.gatewayUrl}${path_}`, headers: { authorization: `Bearer ${t.token}` } };
    const base = { url: `${baseline.url}${path_}`, headers: {} };
    // Same answer from both (the baseline is the same work, not less).
    const [a, b] = await Promise.all([fetch(assay.url, { headers: assay.headers }), fetch(base.url)]);
    const [aj, bj] = [(await a.json()) as { data: unknown[] }, (await b.json()) as { data: unknown[] }];
    if (JSON.stringify(aj.data) !== JSON.stringify(bj.data))
      throw new Error(`the baseline answers otherwise than Assay:\n${JSON.stringify(aj.data[0])}\n${JSON.stringify(bj.data[0])}`);
    await load(assay.url, 16, 3, assay.headers);
    await load(base.url, 16, 3);

    console.log(`GET /{p}/test-runs?limit=50, 200 runs, ${seconds} s per figure (autocannon)`);
    console.log('| connections | Assay req/s | baseline req/s | ratio | Assay p99 | baseline p99 | ratio |');
    console.log('|---|---|---|---|---|---|---|');
    for (const c of [16, 50]) {
      const bf = await load(base.url, c, seconds);
      const af = await load(assay.url, c, seconds, assay.headers);
      console.log(
        `| ${c} | ${af.perSecond.toFixed(0)} | ${bf.perSecond.toFixed(0)} | ${ratio(af.perSecond, bf.perSecond)} | ${af.p99} ms | ${bf.p99} ms | ${ratio(af.p99, bf.p99)} |` +
          (af.errors + bf.errors > 0 ? ` errors ${af.errors}/${bf.errors}` : ''),
      );
    }
    const b1 = await load(base.url, 1, seconds);
    const a1 = await load(assay.url, 1, seconds, assay.headers);
    console.log(`| 1 (p50) | ${a1.p50} ms | ${b1.p50} ms | ${ratio(a1.p50, b1.p50)} | | | |`);
  } finally {
    baseline.stop();
    await bench.close();
  }
}
