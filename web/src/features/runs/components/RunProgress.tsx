import type { TestStats } from '../data';

/**
 * A run's results as one bar: passed, failed, flaky and skipped over the total (the expected total while a run
 * reports, when the reporter gave it). The counts are also written out: the colours are not the only signal.
 */
export function RunProgress({ stats, expected }: { stats: TestStats; expected?: number | null }) {
  const total = Math.max(expected ?? 0, stats.total);
  const parts = [
    ['passed', stats.passed],
    ['failed', stats.failed],
    ['flaky', stats.flaky],
    ['skipped', stats.skipped],
  ] as const;
  const counts = parts
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const summary = `${counts || 'no results yet'}${expected && expected > stats.total ? ` · ${stats.total} of ${expected} reported` : ` of ${total}`}`;
  return (
    <div className="run-progress">
      <div className="progress" role="img" aria-label={summary}>
        {total > 0
          ? parts.map(([k, n]) => (n > 0 ? <span key={k} className={k} style={{ width: `${(n / total) * 100}%` }} /> : null))
          : null}
      </div>
      <span className="run-progress-text">{summary}</span>
    </div>
  );
}
