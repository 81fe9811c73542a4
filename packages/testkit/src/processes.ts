/** Starting and stopping Node processes of the system, with logs to files and a clean stop. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(graceMs?: number): Promise<number | null>;
  /** SIGKILL, no grace. */
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * V8 flags every process starts with, here as in the image (Dockerfile: its CMD, and NODE_OPTIONS for the semi-spaces,
 * which SEMI_SPACE_MB below raises for some). By default V8 lets the young generation grow to 2 × 32 MB semi-spaces
 * on a machine this size and keeps them: ~50 MB of each process's idle RSS (the gateway 194 → 145 MB). `--expose-gc`
 * lets the stream-buffer collector run (service-kit memory.ts).
 * `--heap-growing-percent=100`: after a full GC the old generation may grow to twice what survived (plus 8 MB).
 * V8's own factor falls to 1.1 when its GCs look cheap against a light allocation rate, which leaves less room
 * below the limit than the young generation's capacity, the point at which V8 starts marking again: a steadily
 * loaded process with a small heap then marks without end (the gateway: a full GC every ~10 requests of the
 * analytics performance list and no scavenge at all, 8–10 ms CPU a request against 3–4; analytics 20–27 full GCs
 * per 200 requests against 4–6). Twice the survivors keeps the memory goals (`make bench BENCH=ingest-memory`).
 */
export const NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=100', '--expose-gc'];

/**
 * Young-generation semi-spaces (MB) of the processes that take other than NODE_FLAGS' 8. The image takes the value as
 * its build argument SEMI_SPACE_MB (skaffold.yaml), into NODE_OPTIONS (Dockerfile).
 *   - services/runs, 32: an ingestion allocates about 175 MB a 10,000-test report (parsed tests, COPY text), nearly
 *     all of it dead within a chunk. With 8 MB semi-spaces about 30 scavenges an upload each copied the chunk in
 *     progress and promoted part of it, for full GCs to free. A/B on `make up` (medians of sets of five uploads): the
 *     runs service's CPU an upload 10–20 % less; 50,000-test uploads 1.31–1.32 s against 1.43–1.54, 10,000-test ones
 *     0.285–0.318 s against 0.289–0.315 (0.311–0.321 against 0.347–0.366 while the writer gave way every 100 tests,
 *     not 10: store/ingest.ts). Its peak RSS under three 61 MiB reports 212–232 MiB against 166, idle 111–112
 *     against 107 (`make bench BENCH=ingest-memory`).
 */
export const SEMI_SPACE_MB: Readonly<Record<string, number>> = { 'services/runs': 32 };

/** The V8 flags of the process in workspace `dir` (NODE_FLAGS, with its SEMI_SPACE_MB). */
export function nodeFlagsOf(dir: string): string[] {
  const mb = SEMI_SPACE_MB[dir];
  return mb === undefined
    ? NODE_FLAGS
    : NODE_FLAGS.map((f) => (f.startsWith('--max-semi-space-size=') ? `--max-semi-space-size=${mb}` : f));
}

/**
 * glibc malloc settings every process starts with, here as in the image (Dockerfile ENV): two arenas instead of up to
 * eight per core, and freed memory at the top of the heap given back above 128 KiB (the default threshold grows with
 * the largest block freed, up to 64 MB: after a large upload the buffers' memory stayed in the process). Settled idle
 * RSS after three 61 MiB uploads (`make bench BENCH=ingest-memory`): runs 116–117 → 112–114 MiB, analytics 104–105 →
 * 100–102 MiB. And blocks of 64 KiB and more mapped on their own (128 KiB by default): every socket read is a 64 KiB
 * buffer, and those of a stream, freed among longer-lived blocks, left holes in the heap that trimming its top cannot
 * give back. After forwarding one 61 MiB upload the gateway's heap stayed at 21 MiB against 11 MiB with the setting,
 * its idle RSS at 112–121 MiB in four runs against 106–108 in three (ingest-memory, /proc/self/smaps).
 */
export const MALLOC_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '65536' };

export function startProcess(opts: {
  name: string;
  dir: string;
  args?: string[];
  env: NodeJS.ProcessEnv;
  logDir: string;
  detached?: boolean;
}): ManagedProcess {
  fs.mkdirSync(opts.logDir, { recursive: true });
  const logFile = path.join(opts.logDir, `${opts.name}.log`);
  const out = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeFlagsOf(opts.dir), 'dist/main.js', ...(opts.args ?? [])], {
    cwd: path.join(REPO_ROOT, opts.dir),
    env: { ...MALLOC_ENV, ...opts.env },
    stdio: ['ignore', out, out],
    detached: opts.detached ?? false,
  });
  fs.closeSync(out);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (graceMs = 10000) => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return { name: opts.name, child, logFile, stop, kill, exited };
}

export function tail(file: string, lines = 40): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Polls `check` until it resolves true; on timeout throws with `describe()`. */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, describe: () => string, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(describe());
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
