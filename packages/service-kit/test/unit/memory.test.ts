/**
 * boundMemory's idle release (src/memory.ts), in a child process of its own (the watchers are per process and
 * need --expose-gc): a heap grown by a burst of allocations is given back once the loop is idle, and not while
 * the loop is busy.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

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
