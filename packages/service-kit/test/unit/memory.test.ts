/**
 * boundMemory's watchers (src/memory.ts), each in a child process of its own (the watchers are per process and
 * need --expose-gc): a heap grown by a burst of allocations is given back once the loop is idle, and not while
 * the loop is busy or a stream passes, and so are malloc's free blocks under a live one; the stream-buffer watcher
 * forces collections while a stream passes (`streamPassing`), and only then.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { MALLOC_ENV } from '@assay/testkit';

const MEMORY_JS = path.join(__dirname, '..', '..', 'dist', 'memory.js');

/** Grows the heap by ~100 MB of short-lived objects, drops them, then (idle or busy) waits `waitMs`. */
const child = (busy: boolean, waitMs: number) => `
  const { boundMemory } = require(${JSON.stringify(MEMORY_JS)});
  boundMemory({ idleCheckMs: 200 });
  let keep = [];
  for (let i = 0; i < 1_000_000; i++) keep.push({ i, s: 'item ' + i, a: [i, i] });
  keep = null;
  const grown = process.memoryUsage.rss();
  const until = Date.now() + ${waitMs};
  const done = () => console.log(JSON.stringify({ grown, after: process.memoryUsage.rss() }));
  if (${busy}) {
    // Busy: the loop keeps working (short tasks, so the watcher's timer still runs between them).
    const spin = () => { const end = Date.now() + 20; while (Date.now() < end); if (Date.now() < until) setImmediate(spin); else done(); };
    spin();
  } else setTimeout(done, ${waitMs});
`;

async function measure(busy: boolean): Promise<{ grown: number; after: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--max-semi-space-size=8', '-e', child(busy, 1500)]);
  return JSON.parse(stdout) as { grown: number; after: number };
}

const MB = 1024 * 1024;

test('an idle process gives the pages of its dropped objects back', async () => {
  const { grown, after } = await measure(false);
  expect(grown - after).toBeGreaterThan(40 * MB);
});

test('a busy process is left alone', async () => {
  const { grown, after } = await measure(true);
  expect(grown - after).toBeLessThan(20 * MB);
});

/**
 * Fills malloc's heap with 64 MiB of buffers (32 KiB blocks, as socket reads leave them), keeps one block allocated
 * after them and drops the others; then idle for 1.5 s. With the image's malloc settings (the testkit's MALLOC_ENV).
 */
const mallocChild = `
  const { boundMemory } = require(${JSON.stringify(MEMORY_JS)});
  boundMemory({ idleCheckMs: 200 });
  let blocks = [];
  for (let i = 0; i < 2048; i++) blocks.push(Buffer.allocUnsafeSlow(32 * 1024).fill(i));
  const above = Buffer.allocUnsafeSlow(32 * 1024).fill(1);
  blocks = null;
  const grown = process.memoryUsage.rss();
  setTimeout(() => console.log(JSON.stringify({ grown, after: process.memoryUsage.rss(), above: above.length })), 1500);
`;

test("an idle process gives back malloc's free blocks, also under a block still in use", async () => {
  const env = { ...process.env, ...MALLOC_ENV };
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--max-semi-space-size=8', '-e', mallocChild], { env });
  const { grown, after } = JSON.parse(stdout) as { grown: number; after: number };
  expect(grown - after).toBeGreaterThan(40 * MB);
});

/**
 * Drops 64 KiB buffers as a stream does (16 MiB per 50 ms, in short tasks so the watcher's timer runs between them)
 * for three phases of 600 ms: no stream, a stream passing, the stream ended. Counts the GCs forced (gc()) in each.
 */
const streamChild = `
  const { performance, PerformanceObserver, constants } = require('node:perf_hooks');
  const { boundMemory, streamPassing } = require(${JSON.stringify(MEMORY_JS)});
  boundMemory({ streamCheckMs: 20, idleCheckMs: 60000 });
  const forced = [0, 0, 0];
  let phase = 0;
  // When the stream started and ended: a GC is counted in the phase it started in. Its entry comes later, and one
  // forced just before the stream ended could be read after it.
  const marks = [Infinity, Infinity];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.detail.flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) forced[e.startTime < marks[0] ? 0 : e.startTime < marks[1] ? 1 : 2]++;
  }).observe({ entryTypes: ['gc'] });
  let ended;
  const started = performance.now();
  const step = () => {
    for (let i = 0; i < 16; i++) Buffer.alloc(64 * 1024, i);
    const t = performance.now() - started;
    if (phase === 0 && t > 600) { phase = 1; marks[0] = performance.now(); ended = streamPassing(); }
    if (phase === 1 && t > 1200) { phase = 2; ended(); ended(); marks[1] = performance.now(); }
    if (t < 1800) setTimeout(step, 3);
    else setTimeout(() => console.log(JSON.stringify(forced)), 50);
  };
  step();
`;

test('the stream-buffer watcher forces collections while a stream passes, and only then', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--max-semi-space-size=8', '-e', streamChild]);
  const [before, during, after] = JSON.parse(stdout) as number[];
  expect(before).toBe(0);
  expect(during).toBeGreaterThan(0);
  expect(after).toBe(0);
});

/**
 * The timers the watchers keep (setInterval counted before memory.js is loaded): idle, while a stream passes, and
 * once it ended. An idle process must not wake 50 times a second for a stream watcher with nothing to watch.
 */
const timersChild = `
  const running = new Set();
  const { setInterval: set, clearInterval: clear } = globalThis;
  globalThis.setInterval = (fn, ms) => { const t = set(fn, ms); running.add(t); return t; };
  globalThis.clearInterval = (t) => { running.delete(t); clear(t); };
  const { boundMemory, streamPassing } = require(${JSON.stringify(MEMORY_JS)});
  boundMemory({ streamCheckMs: 20, idleCheckMs: 60000 });
  const counts = [running.size];
  const ended = streamPassing();
  const second = streamPassing();
  counts.push(running.size);
  ended();
  setTimeout(() => {
    counts.push(running.size);
    second();
    setTimeout(() => {
      counts.push(running.size);
      streamPassing();
      counts.push(running.size);
      console.log(JSON.stringify(counts));
      process.exit(0);
    }, 100);
  }, 100);
`;

test("the stream-buffer watcher's timer runs only while a stream passes", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '-e', timersChild]);
  // idle: the idle check only; two streams: one watcher more; one still passing; none; a new stream: it again.
  expect(JSON.parse(stdout)).toEqual([1, 2, 2, 1, 2]);
});

/**
 * Grows the heap with a stream passing, stays idle for 1.5 s with it, then 1.5 s after it ended; the resident size
 * at the end of each phase (the stream-buffer watcher is kept out of it: no buffers, and a check once a minute).
 */
const idleStreamChild = `
  const { boundMemory, streamPassing } = require(${JSON.stringify(MEMORY_JS)});
  boundMemory({ idleCheckMs: 200, streamCheckMs: 60000 });
  const ended = streamPassing();
  let keep = [];
  for (let i = 0; i < 1_000_000; i++) keep.push({ i, s: 'item ' + i, a: [i, i] });
  keep = null;
  const grown = process.memoryUsage.rss();
  setTimeout(() => {
    const streaming = process.memoryUsage.rss();
    ended();
    setTimeout(() => console.log(JSON.stringify({ grown, streaming, after: process.memoryUsage.rss() })), 1500);
  }, 1500);
`;

test('an idle process gives memory back once no stream passes, not while one does', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--max-semi-space-size=8', '-e', idleStreamChild]);
  const { grown, streaming, after } = JSON.parse(stdout) as { grown: number; streaming: number; after: number };
  expect(grown - streaming).toBeLessThan(20 * MB);
  expect(streaming - after).toBeGreaterThan(40 * MB);
});
