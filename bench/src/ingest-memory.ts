/**
 * Memory of the runs service while it ingests large Playwright reports (issue 15, item 1): three ~60 MiB reports
 * uploaded at once through the gateway. Samples the runs process's resident set size (VmRSS) every 20 ms and
 * prints it idle, at its peak with one upload and with three at once, against what the old way cost per upload
 * (the whole body as a string and `JSON.parse` of it, measured in this process on the same report). Also the
 * peaks of the gateway (forwarding the three) and of analytics (folding the three runs after they finished), and
 * the idle RSS and CPU of every other process.
 *
 *   make bench BENCH=ingest-memory      (BENCH_REPORT_MIB=N for another report size; the limit is 64 MiB)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Admin, Api } from '@assay/testkit';
import { cpuMeter, pidGroup } from './cpu';
import { benchSystem } from './lib';
import { mib, rssOf, withPeaks } from './memory';
import { addFigure } from './summary';
import { generateReport } from './ingestion';

/** Seconds over which every process's idle CPU is measured (ticks of 10 ms: a resolution of 1 ms a second). */
const IDLE_CPU_SECONDS = 10;

/** Waits until `pid` has used less than 50 ms of CPU in a second (its work done), at most `maxMs`. */
async function untilIdle(pid: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) {
    const meter = cpuMeter([pidGroup('p', pid)]);
    await new Promise((r) => setTimeout(r, 1000));
    if (meter().p! < 50) return;
  }
}

/** A report of about `target` bytes (the generator's size per test measured on a small one). */
function reportOf(target: number): { body: string; tests: number } {
  const perTest = JSON.stringify(generateReport(1000)).length / 1000;
  const tests = Math.floor(target / perTest);
  return { body: JSON.stringify(generateReport(tests)), tests };
}

/**
 * What reading a report the old way costs (the whole body as a string, then `JSON.parse` of it, both alive while
 * normalizing): the RSS growth of a fresh Node process doing just that on the same bytes.
 */
function jsonParseCost(body: Buffer): number {
  const file = path.join(os.tmpdir(), `assay-bench-report-${process.pid}.json`);
  fs.writeFileSync(file, body);
  try {
    const script =
      "const fs=require('fs');const b=fs.readFileSync(process.argv[1]);const r0=process.memoryUsage().rss;" +
      "const t=b.toString('utf8');const v=JSON.parse(t);process.stdout.write(String(process.memoryUsage().rss-r0));void v;";
    return Number(execFileSync(process.execPath, ['-e', script, file], { encoding: 'utf8' }));
  } finally {
    fs.rmSync(file, { force: true });
  }
}

export async function run(): Promise<void> {
  const target = Number(process.env.BENCH_REPORT_MIB ?? 60) * 1024 * 1024;
  const bench = await benchSystem({ gateway: { RATE_LIMITS: 'reads=1000000,writes=1000000,ip=1000000,ingest=1000000' } });
  try {
    const admin = new Admin(bench.system.adminUrl, bench.system.internalToken);
    const t = await admin.tenant('owner');
    const key = (await admin.apiKey(t.projectId)).token;
    const { body, tests } = reportOf(target);
    const bytes = Buffer.from(body);
    console.log(`report: ${tests} tests, ${mib(bytes.length)}`);
    const api = new Api(bench.system.gatewayUrl, key);
    const upload = async () => {
      const res = await api.request('POST', `/api/v1/ingest/${t.projectId}/playwright`, {
        rawBody: bytes,
        headers: { 'content-type': 'application/json' },
      });
      if (res.status !== 201) throw new Error(`ingestion failed: ${res.status} ${res.text.slice(0, 300)}`);
    };
    const pid = bench.system.processes.get('runs')!.child.pid!;
    const fresh = rssOf(pid);
    await upload(); // warm-up: JIT, pools, the project's first rows
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rssOf(pid);
    console.log(`runs RSS at start: ${mib(fresh)}; idle after a warm-up upload: ${mib(idle)}`);
    const t1 = Date.now();
    const {
      peaks: { runs: one },
    } = await withPeaks({ runs: pid }, upload);
    console.log(`peak RSS, one upload: ${mib(one)} (+${mib(one - idle)}; ${((Date.now() - t1) / 1000).toFixed(1)} s)`);
    const others = {
      gateway: bench.system.processes.get('gateway')!.child.pid!,
      analytics: bench.system.processes.get('analytics')!.child.pid!,
    };
    // Idle as between a deployment's uploads: analytics done folding, then a few idle seconds in which every process
    // gives back what it no longer uses (service-kit memory.ts, releaseWhenIdle).
    await untilIdle(others.analytics, 180_000);
    await new Promise((r) => setTimeout(r, 12_000));
    const settled = rssOf(pid);
    console.log(`runs RSS settled after those uploads: ${mib(settled)}`);
    const t3 = Date.now();
    let failed = '';
    const othersIdle = Object.fromEntries(Object.entries(others).map(([k, p]) => [k, rssOf(p)]));
    // The goal's "each process idle": the services these uploads do not pass through too.
    const rest = [...bench.system.processes]
      .filter(([name]) => name !== 'runs' && !(name in others))
      .map(([name, p]) => ({ name, rss: rssOf(p.child.pid!) }));
    console.log(`idle RSS of the other services meanwhile: ${rest.map((r) => `${r.name} ${mib(r.rss)}`).join(', ')}`);
    const largest = rest.reduce((a, b) => (b.rss > a.rss ? b : a));
    addFigure({
      bench: 'ingest-memory',
      figure: `idle RSS of the other services (largest: ${largest.name})`,
      assay: mib(largest.rss),
      goal: '≤ 120 MB',
      met: largest.rss <= 120e6,
    });
    // And their CPU while idle: kafkajs' idle connections once kept a 1 ms timer running (packages/events,
    // kafkajs-idle.ts), 30–40 ms of CPU a second in each consuming process.
    const idleMeter = cpuMeter([...bench.system.processes].map(([name, p]) => pidGroup(name, p.child.pid)));
    await new Promise((r) => setTimeout(r, IDLE_CPU_SECONDS * 1000));
    const idleCpu = Object.entries(idleMeter()).map(([name, ms]) => ({ name, perSecond: ms / IDLE_CPU_SECONDS }));
    const busiest = idleCpu.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
    const idleTotal = idleCpu.reduce((a, b) => a + b.perSecond, 0);
    console.log(
      `idle CPU, ms a second: ${idleCpu.map((c) => `${c.name} ${c.perSecond.toFixed(0)}`).join(', ')}; all ${idleTotal.toFixed(0)}`,
    );
    addFigure({
      bench: 'ingest-memory',
      figure: `idle CPU of every process, ms a second (busiest: ${busiest.name})`,
      assay: `${idleTotal.toFixed(0)} (${busiest.perSecond.toFixed(0)})`,
      goal: 'for scale',
    });
    let uploaded = 0;
    const { peaks } = await withPeaks({ runs: pid, ...others }, async () => {
      await Promise.all([upload(), upload(), upload()]).catch((err: Error) => {
        failed = err.message;
      });
      uploaded = Date.now();
      // Analytics folds each finished run from the runs service after the upload: keep sampling until it is done.
      await untilIdle(others.analytics, 180_000);
    });
    const three = peaks.runs;
    console.log(
      `peak RSS, three uploads at once: ${mib(three)} (+${mib(three - idle)}; ${((uploaded - t3) / 1000).toFixed(1)} s)${failed ? `; FAILED: ${failed}` : ''}`,
    );
    const otherNames = Object.keys(others) as (keyof typeof others)[];
    for (const k of otherNames)
      console.log(
        `peak RSS of ${k} meanwhile (${k === 'analytics' ? `folding the three runs, done ${((Date.now() - uploaded) / 1000).toFixed(0)} s after` : 'forwarding them'}): ${mib(peaks[k])} (idle ${mib(othersIdle[k]!)})`,
      );
    const peakFigure = (name: string, peak: number, idleNow: number) =>
      addFigure({
        bench: 'ingest-memory',
        figure: `${name}: peak RSS, three ${mib(bytes.length)} reports at once (idle)`,
        assay: `${mib(peak)} (${mib(idleNow)})`,
        goal: name === 'gateway' ? '≤ 150 MB (idle ≤ 120 MB)' : '≤ 300 MB (idle ≤ 120 MB)',
        met: peak <= (name === 'gateway' ? 150e6 : 300e6) && idleNow <= 120e6,
      });
    peakFigure('runs', three, settled);
    for (const k of otherNames) peakFigure(k, peaks[k], othersIdle[k]!);
    const oldCost = jsonParseCost(bytes);
    console.log(
      `the old way per upload (body as a string + JSON.parse, in a fresh process): +${mib(oldCost)}; three at once ≈ +${mib(3 * oldCost)}`,
    );
    console.log(`ratio peak growth (three at once) / old way (three): ${((three - idle) / (3 * oldCost)).toFixed(2)}`);
  } finally {
    await bench.close();
  }
}
