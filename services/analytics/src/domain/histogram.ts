/**
 * The duration sketch of the read model: a fixed, log-scale histogram over integer milliseconds, stored sparse
 * (sorted bucket indices and their counts) in Postgres integer arrays.
 *
 * Buckets: 0 holds 0 ms; bucket i ≥ 1 holds [L(i), L(i+1)) and stands for the value M(i), with L(1) = 1,
 * M(i) = ⌊41·L(i)/40⌋ and L(i+1) = ⌊40·M(i)/39⌋ + 1, all in integers so every process (and every test) draws the
 * same boundaries. Then every value v of bucket i is within 2.5 % of M(i): |v − M(i)| ≤ 0.025·v. Below 39 ms a
 * bucket is one millisecond wide (exact); above, about 5 % wide (395 buckets up to the last, open-ended one at
 * about 24 days).
 *
 * Why this sketch: it is exactly mergeable (counts add, and subtract, bucket by bucket), so the daily rollups
 * add up to any window and a rolling window can drop its oldest day; its size is bounded (a few dozen buckets
 * used per test in practice); its error bound is deterministic (no randomness, no merge-order effects, as a
 * t-digest would have). A percentile is the nearest-rank sample's bucket value: within 2.5 % of the exact
 * nearest-rank percentile.
 */

export interface Hist {
  /** Sorted, distinct bucket indices. */
  idx: number[];
  /** Counts (> 0), parallel to `idx`. */
  cnt: number[];
}

const LIMIT = 2 ** 31;

/** Lower bounds: BOUNDS[i] = L(i) (BOUNDS[0] = 0), and the values the buckets stand for: VALUES[i] = M(i). */
export const BOUNDS: number[] = [0, 1];
const VALUES: number[] = [0];
for (;;) {
  const l = BOUNDS[BOUNDS.length - 1]!;
  const m = Math.floor((41 * l) / 40);
  VALUES.push(m);
  const next = Math.floor((40 * m) / 39) + 1;
  if (next >= LIMIT) break;
  BOUNDS.push(next);
}

export const BUCKETS = BOUNDS.length;

/** Bucket of a duration in ms (negative and fractional values are clamped/rounded first). */
export function bucketOf(ms: number): number {
  const v = Math.max(0, Math.round(ms));
  if (v === 0) return 0;
  let lo = 1;
  let hi = BOUNDS.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (BOUNDS[mid]! <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The value a bucket stands for (integer ms). */
export function bucketValue(i: number): number {
  return VALUES[Math.max(0, Math.min(i, VALUES.length - 1))]!;
}

export const emptyHist = (): Hist => ({ idx: [], cnt: [] });

export function histOf(durationsMs: number[]): Hist {
  const m = new Map<number, number>();
  for (const d of durationsMs) {
    const b = bucketOf(d);
    m.set(b, (m.get(b) ?? 0) + 1);
  }
  return fromMap(m);
}

function fromMap(m: Map<number, number>): Hist {
  const idx = [...m.keys()].filter((k) => m.get(k)! > 0).sort((a, b) => a - b);
  return { idx, cnt: idx.map((k) => m.get(k)!) };
}

/** a + sign·b, bucket by bucket; buckets that reach 0 disappear (a count never goes below 0). */
export function mergeHist(a: Hist, b: Hist, sign: 1 | -1 = 1): Hist {
  const idx: number[] = [];
  const cnt: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.idx.length || j < b.idx.length) {
    const ka = i < a.idx.length ? a.idx[i]! : Infinity;
    const kb = j < b.idx.length ? b.idx[j]! : Infinity;
    let k: number;
    let c: number;
    if (ka === kb) {
      k = ka;
      c = a.cnt[i++]! + sign * b.cnt[j++]!;
    } else if (ka < kb) {
      k = ka;
      c = a.cnt[i++]!;
    } else {
      k = kb;
      c = sign * b.cnt[j++]!;
    }
    if (c > 0) {
      idx.push(k);
      cnt.push(c);
    }
  }
  return { idx, cnt };
}

export function histTotal(h: Hist): number {
  let n = 0;
  for (const c of h.cnt) n += c;
  return n;
}

/** Nearest-rank quantile (the ⌈q·n⌉-th smallest sample), estimated by its bucket's middle; 0 when empty. */
export function quantile(h: Hist, q: number): number {
  const n = histTotal(h);
  if (n === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * n));
  let seen = 0;
  for (let i = 0; i < h.idx.length; i++) {
    seen += h.cnt[i]!;
    if (seen >= rank) return bucketValue(h.idx[i]!);
  }
  return bucketValue(h.idx[h.idx.length - 1]!);
}

export interface Percentiles {
  p50: number;
  p90: number;
  p95: number;
  p99: number;
}

export const percentilesOf = (h: Hist): Percentiles => ({
  p50: quantile(h, 0.5),
  p90: quantile(h, 0.9),
  p95: quantile(h, 0.95),
  p99: quantile(h, 0.99),
});

/** Sums many sparse histograms (e.g. rows of a rollup). */
export function sumHists(hs: Iterable<Hist>): Hist {
  const m = new Map<number, number>();
  for (const h of hs) for (let i = 0; i < h.idx.length; i++) m.set(h.idx[i]!, (m.get(h.idx[i]!) ?? 0) + h.cnt[i]!);
  return fromMap(m);
}
