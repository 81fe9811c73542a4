/**
 * A manual run's progress from its rollup counts: a bar with one segment per verdict (each segment also has
 * its count in words, colour is never the only signal) and "n of total tested".
 */
import type { Schemas } from '../../../api/client';
import { VERDICTS, valueLabel } from '../values';

type Stats = Schemas['ManualRun']['stats'];

export function testedCount(stats: Stats): number {
  return stats.total - stats.untested;
}

/** `detailed`: the count per verdict too; `countsHidden`: those counts out of sight, still read by a screen reader. */
export function RunProgress({
  stats,
  detailed = false,
  countsHidden = false,
}: {
  stats: Stats;
  detailed?: boolean;
  countsHidden?: boolean;
}) {
  const tested = testedCount(stats);
  const percent = stats.total === 0 ? 0 : Math.round((tested / stats.total) * 100);
  const counted = VERDICTS.filter((v) => v !== 'untested');
  return (
    <div className="run-progress">
      <div
        className="progress run-progress-bar"
        role="img"
        aria-label={`${tested} of ${stats.total} tested: ${counted.map((v) => `${stats[v]} ${v}`).join(', ')}`}
      >
        {counted.map((v) =>
          stats[v] > 0 ? <span key={v} className={`verdict-fill-${v}`} style={{ width: `${(stats[v] / stats.total) * 100}%` }} /> : null,
        )}
      </div>
      <p className="run-progress-text">
        <strong>
          {tested} of {stats.total} tested
        </strong>{' '}
        ({percent}%)
      </p>
      {detailed ? (
        <dl className={countsHidden ? 'verdict-counts visually-hidden' : 'verdict-counts'}>
          {VERDICTS.map((v) => (
            <div key={v} className={`verdict-count verdict-count-${v}`}>
              <dt>{valueLabel(v)}</dt>
              <dd data-verdict={v}>{stats[v]}</dd>
            </div>
          ))}
        </dl>
      ) : null}
    </div>
  );
}
