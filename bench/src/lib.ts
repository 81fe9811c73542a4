/** Shared benchmark helpers: a system on free ports, a closed-loop load driver, percentiles. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROCESSES, startInfra, startSystemOnFreePorts, type Infra, type RunningSystem } from '@assay/testkit';

export interface BenchSystem {
  infra: Infra;
  system: RunningSystem;
  close(): Promise<void>;
}

/** BENCH_CPU_PROF=<dir>: every process writes a V8 CPU profile there when it stops (open in Chrome DevTools). */
function profiled(envFor?: Record<string, Record<string, string>>): Record<string, Record<string, string>> | undefined {
  const prof = process.env.BENCH_CPU_PROF;
  if (!prof) return envFor;
  const options = { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(prof)}` };
  return Object.fromEntries(PROCESSES.map((p) => [p.name, { ...options, ...envFor?.[p.name] }]));
}

export async function benchSystem(
  envFor?: Record<string, Record<string, string>>,
  opts: { beforeStart?: (infra: Infra) => Promise<void> } = {},
): Promise<BenchSystem> {
  const infra = await startInfra();
  // E.g. a restored database (the analytics bench's BENCH_KEEP): before the processes migrate and start.
  try {
    await opts.beforeStart?.(infra);
  } catch (err) {
    await infra.stop();
    throw err;
  }
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-'));
  // The processes run as the image runs them: without the development system's source maps (every loaded module's map
  // parsed and kept, ~4.5 MB of the gateway's idle RSS).
  const system = await startSystemOnFreePorts({
    infra: infra.env,
    logDir,
    logLevel: 'warn',
    envFor: profiled(envFor),
    env: { NODE_OPTIONS: '' },
  }).catch(async (err: unknown) => {
    await infra.stop();
    throw err;
  });
  return {
    infra,
    system,
    async close() {
      await system.stop();
      await infra.stop();
      // The logs stay for a look after the run (a few hundred KB); the runs service's stored artifacts go
      // (artifact-memory's 500 MB upload: every `make bench` had left about 0.5 GB in the temporary folder).
      const artifacts = system.envOf('runs').ARTIFACT_DIR;
      if (artifacts) fs.rmSync(artifacts, { recursive: true, force: true });
    },
  };
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const i = Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1);
  return sortedMs[Math.max(0, i)]!;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Runs `fn` from `concurrency` loops until `total` calls are done; latencies in ms. */
export async function closedLoop(total: number, concurrency: number, fn: (i: number) => Promise<boolean>): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t0 = process.hrtime.bigint();
        const ok = await fn(i).catch(() => false);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (!ok) errors++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return {
    requests: total,
    errors,
    seconds,
    perSecond: total / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
  };
}

export function fmt(r: LoadResult): string {
  return `${r.requests} requests in ${r.seconds.toFixed(2)} s = ${r.perSecond.toFixed(0)}/s; p50 ${r.p50.toFixed(2)} ms, p95 ${r.p95.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms; errors ${r.errors}`;
}
