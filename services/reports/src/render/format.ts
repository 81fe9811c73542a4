/** How figures read in a report: English, UTC, thousands separators, durations in the largest sensible unit. */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** 1234567 → `1,234,567`. */
export function int(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** 66.6667 → `66.67%` (`digits` decimals). */
export function pct(v: number, digits = 1): string {
  return `${(Number.isFinite(v) ? v : 0).toFixed(digits)}%`;
}

/** Milliseconds → `850 ms`, `12.3 s`, `3 min 05 s`, `1 h 02 min`. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(2) : s.toFixed(1)} s`;
  const totalSeconds = Math.round(s);
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)} min ${String(totalSeconds % 60).padStart(2, '0')} s`;
  const minutes = Math.round(totalSeconds / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** `2026-03-04` → `4 Mar 2026`. */
export function day(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number);
  return `${d} ${MONTHS[(m ?? 1) - 1]} ${y}`;
}

/** `2026-03-04` → `4 Mar` (chart axes). */
export function shortDay(iso: string): string {
  const [, m, d] = iso.split('-').map(Number);
  return `${d} ${MONTHS[(m ?? 1) - 1]}`;
}

/** A time → `2026-03-10 14:05 UTC`. */
export function dateTime(d: Date | null): string {
  if (!d) return '–';
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A time → `10 Mar 14:05` (table cells; the report says once that times are UTC). */
export function shortDateTime(d: Date | null): string {
  if (!d) return '–';
  const iso = d.toISOString();
  return `${shortDay(iso.slice(0, 10))} ${iso.slice(11, 16)}`;
}

/** `N tests` / `1 test`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${int(n)} ${n === 1 ? one : many}`;
}
