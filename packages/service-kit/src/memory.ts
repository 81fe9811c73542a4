/**
 * Keeps a process's memory near its idle size while large streams pass (uploads, downloads, reports).
 *
 * Each socket read allocates a new 64 KiB buffer. A stream allocates so little on the JS heap per buffer that the
 * young generation rarely fills, so V8 frees the buffers only when their external memory has grown by ~64 MB:
 * a 500 MB upload grew both the gateway and runs by 70–80 MB. Every 50 ms, if array buffers grew by more than
 * 4 MiB since the last look, a minor GC (a scavenge, about a millisecond) frees those already dropped: the
 * same upload then grows each process by about 20 MB, and runs faster (`make bench BENCH=artifact-memory`).
 * Needs `--expose-gc`, which every process starts with (NODE_FLAGS in the testkit, the image's CMD); without it
 * this does nothing.
 */
const INTERVAL_MS = 50;
const GROWTH_BYTES = 4 << 20;

type Gc = (options: { type: 'minor' | 'major' }) => void;

let started = false;

export function collectStreamBuffers(): void {
  const gc = (globalThis as { gc?: Gc }).gc;
  if (started || !gc) return;
  started = true;
  let base = process.memoryUsage().arrayBuffers;
  setInterval(() => {
    const now = process.memoryUsage().arrayBuffers;
    if (now - base > GROWTH_BYTES) {
      gc({ type: 'minor' });
      base = process.memoryUsage().arrayBuffers;
    } else if (now < base) base = now;
  }, INTERVAL_MS).unref();
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
