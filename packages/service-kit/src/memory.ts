/**
 * Keeps a process's memory near its idle size: while large streams pass (uploads, downloads, reports), and once
 * work is over.
 *
 * Each socket read allocates a new 64 KiB buffer. A stream allocates so little on the JS heap per buffer that the
 * young generation rarely fills, so V8 frees the buffers only when their external memory has grown by ~64 MB:
 * a 500 MB upload grew both the gateway and runs by 70–80 MB. While a stream passes (`streamPassing`), every 20 ms,
 * if array buffers grew by more than 4 MiB since the last look, a minor GC (a scavenge, about a millisecond) frees
 * those already dropped: the same upload then grows each process by about 20 MB, and runs faster
 * (`make bench BENCH=artifact-memory`). Not 50 ms: on loopback a download comes in bursts of 400–600 MB/s, and
 * Node's HTTP client allocates each body chunk twice (the socket's read and the parser's copy), so the gateway's
 * buffers grew by 40–60 MB between two looks and a 500 MB download peaked at 161–175 MB (130–143 at 20 ms).
 * Buffers that outlive two minor GCs (held while a slower destination catches up, e.g. lib-storage's 8 MiB S3 parts,
 * which grew runs by 74 MB) are old and only a full GC frees them: when what survives the minor GCs has grown by
 * 8 MiB since the last full one, a full GC (tens of milliseconds).
 * Only while a stream passes: the buffers of ordinary answers (a 380 KiB analytics list crossing the gateway leaves
 * ~1.1 MB of them) die young and V8 collects them on its own, whereas a forced scavenge promotes the objects of the
 * requests in flight, whose old generation then brings full GCs (the gateway spent 7.1–8.3 ms CPU a request on
 * that list with the watcher always on, 3.7–4.8 without).
 * Needs `--expose-gc`, which every process starts with (NODE_FLAGS in the testkit, the image's CMD); without it
 * this does nothing.
 */
import { performance } from 'node:perf_hooks';

const INTERVAL_MS = 20;
const GROWTH_BYTES = 4 << 20;
const OLD_GROWTH_BYTES = 8 << 20;

type Gc = (options: { type: 'minor' | 'major'; execution?: 'sync'; flavor?: 'regular' | 'last-resort' }) => void;

let started = false;
/** Streams passing now (`streamPassing`), and when the last one ended (performance.now()). */
let streams = 0;
let streamEndedAt = -Infinity;
/** Starts the stream-buffer watcher's timer when it is not running (set by `boundMemory`). */
let watchStream: (() => void) | undefined;

/**
 * Marks a stream (an upload or a download) as passing through the process until the returned function is called
 * (calling it again does nothing). The service kit marks every request of a service's internal HTTP port, whose
 * routes are the streaming ones; the gateway marks its calls to those routes.
 */
export function streamPassing(): () => void {
  streams++;
  watchStream?.();
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    streams--;
    streamEndedAt = performance.now();
  };
}

/**
 * Starts both watchers below (once per process; each service's server and the gateway call it at start).
 * `idleCheckMs` and `streamCheckMs` are for tests.
 */
export function boundMemory(opts: { idleCheckMs?: number; streamCheckMs?: number } = {}): void {
  const gc = (globalThis as { gc?: Gc }).gc;
  if (started || !gc) return;
  started = true;
  collectStreamBuffers(gc, opts.streamCheckMs ?? INTERVAL_MS);
  releaseWhenIdle(gc, opts.idleCheckMs ?? IDLE_CHECK_MS);
}

function collectStreamBuffers(gc: Gc, checkMs: number): void {
  const arrayBuffers = () => process.memoryUsage().arrayBuffers;
  let base = 0;
  let afterFull = 0;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    // The last stream ended: the timer stops until the next one starts (an idle process woke 50 times a second for
    // it, on every one of make up's processes). Growth without a stream is answers' buffers, V8's to collect.
    if (streams === 0) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    const now = arrayBuffers();
    if (now - base > GROWTH_BYTES) {
      gc({ type: 'minor' });
      base = arrayBuffers();
      if (base - afterFull > OLD_GROWTH_BYTES) {
        gc({ type: 'major' });
        base = afterFull = arrayBuffers();
      }
    } else if (now < base) base = now;
    if (base < afterFull) afterFull = base;
  };
  // A stream that starts is measured from there.
  watchStream = () => {
    if (timer) return;
    base = afterFull = arrayBuffers();
    timer = setInterval(check, checkMs).unref();
  };
  if (streams > 0) watchStream();
}

const IDLE_CHECK_MS = 5_000;
const IDLE_UTILIZATION = 0.05;
const IDLE_GROWTH_BYTES = 2 << 20;

/**
 * Gives memory back to the system once the process is idle. V8 keeps the pages its heap grew to — startup's
 * garbage (compiling 1,100 modules and every route's schemas), the young generation grown to its maximum under
 * load, the old generation after a burst — and its own memory reducer frees garbage but not those pages: the
 * gateway stayed at 134 MB 30 s after start. A last-resort GC (full, compacting, shrinking the young generation)
 * brings it to 104 MB. Run it when the event loop was busy less than 5 % of a whole check interval, no stream
 * passed in it, and the resident size grew by 2 MB since the last one (so at most once per growth, never under
 * load); it blocks the loop for tens of milliseconds, which an idle process can spare.
 * A stream leaves the loop below 5 % (the gateway forwarding a 61 MiB upload): released in its middle, the process
 * then measured its growth from there, and what the stream left was not given back once it ended (ingest-memory:
 * the gateway released with one, then three uploads passing).
 * After the GC, glibc's `malloc_trim` (`trimMalloc`): the GC frees the array buffers' blocks, but malloc gives back
 * only the top of its heap, and one live block above them keeps the rest.
 */
function releaseWhenIdle(gc: Gc, checkMs: number): void {
  let base = 0;
  let last = performance.eventLoopUtilization();
  let releasing = false;
  setInterval(() => {
    const elu = performance.eventLoopUtilization(last);
    last = performance.eventLoopUtilization();
    const streamed = streams > 0 || performance.now() - streamEndedAt < checkMs;
    if (releasing || streamed || elu.utilization > IDLE_UTILIZATION || process.memoryUsage.rss() - base < IDLE_GROWTH_BYTES) return;
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    releasing = true;
    void trimMalloc().finally(() => {
      releasing = false;
      base = process.memoryUsage.rss();
    });
  }, checkMs).unref();
}

let mallocTrim: Promise<(() => void) | undefined> | undefined;

/**
 * Gives the pages of malloc's free blocks back to the system, wherever they are in its heaps (glibc's
 * `malloc_trim(0)`, through koffi; loaded on the first call, and a no-op where the C library has none: musl, macOS).
 * Every socket read and `Buffer` is a malloc block (a 64 KiB read's buffer shrunk to what was read), freed when a GC
 * collects its `Buffer`: a read load leaves the gateway's heap at the size those blocks reached between two full GCs,
 * free but kept, because a block still in use sits above them. On `make up`, 20 s of test-runs reads at 16
 * connections left the gateway at 155–163 MB 60 s later (111 before), 50 MB of it free in malloc's main heap;
 * `malloc_trim(0)` brought it to 106 MB, and the runs service from 116 to 95 MB. A trim takes about a millisecond.
 */
export function trimMalloc(): Promise<void> {
  mallocTrim ??=
    process.platform === 'linux'
      ? import('koffi')
          .then(({ default: koffi }) => {
            const trim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as (pad: number) => number;
            return () => void trim(0);
          })
          .catch(() => undefined)
      : Promise.resolve(undefined);
  return mallocTrim.then((trim) => trim?.());
}

/**
 * After a stretch of bulk work that made much short-lived garbage (an analytics fold of a large run: its chunks'
 * results, rollups and SQL parameters), a full GC now. V8 otherwise lets the old generation grow towards its
 * limit (gigabytes on a machine this size) before it collects: one 80,000-result fold left analytics at 321 MB
 * of which 28 MB were alive. Costs tens of milliseconds; without `--expose-gc` it does nothing.
 */
export function collectAfterBulkWork(): void {
  (globalThis as { gc?: Gc }).gc?.({ type: 'major' });
}
