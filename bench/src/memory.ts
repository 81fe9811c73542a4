/** Memory of the system's processes as the benchmarks measure it: the resident set size from /proc, every 20 ms. */
import fs from 'node:fs';

/** Bytes as whole MiB, the way the memory figures are printed. */
export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** A process's resident set size (VmRSS), in bytes. */
export function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/** Runs `fn` while sampling each named process's RSS every 20 ms; answers what `fn` answered and each one's peak. */
export async function withPeaks<K extends string, T>(
  pids: Record<K, number>,
  fn: () => Promise<T>,
): Promise<{ value: T; peaks: Record<K, number> }> {
  const names = Object.keys(pids) as K[];
  const peaks = Object.fromEntries(names.map((k) => [k, rssOf(pids[k])])) as Record<K, number>;
  const sample = () => {
    for (const k of names) peaks[k] = Math.max(peaks[k], rssOf(pids[k]));
  };
  const timer = setInterval(sample, 20);
  let value: T;
  try {
    value = await fn();
  } finally {
    clearInterval(timer);
  }
  sample();
  return { value, peaks };
}
