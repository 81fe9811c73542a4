/** A run's facts (branch, environment, commit, times) and its stats as figures, shared by the run and spec pages. */
import { formatCount, formatDateTime, formatDuration } from '../../../ui/format';
import { RunProgress } from './RunProgress';
import { shortHash, type Run, type TestStats } from '../data';

export function RunFacts({ run }: { run: Pick<Run, 'metadata' | 'startTime' | 'duration'> }) {
  const git = run.metadata.git;
  return (
    <ul className="facts" aria-label="Run facts">
      <li>
        Branch <strong className="mono">{git.branch || '—'}</strong>
      </li>
      <li>
        Environment <strong>{git.environment || '—'}</strong>
      </li>
      <li>
        Commit <strong className="mono">{git.commit.hash ? shortHash(git.commit.hash) : '—'}</strong>{' '}
        {git.commit.message ? <span title={git.commit.message}>{git.commit.message.split('\n')[0]}</span> : null}
        {git.commit.author ? <span> · {git.commit.author}</span> : null}
      </li>
      <li>
        Started <strong>{formatDateTime(run.startTime)}</strong>
      </li>
      <li>
        Duration <strong>{formatDuration(run.duration)}</strong>
      </li>
    </ul>
  );
}

export function RunStats({ stats, live }: { stats: TestStats; live?: { isRunning: boolean; expected: number | null } }) {
  const figures: [string, number][] = [
    ['Tests', stats.total],
    ['Passed', stats.passed],
    ['Failed', stats.failed],
    ['Flaky', stats.flaky],
    ['Skipped', stats.skipped],
  ];
  return (
    <>
      <dl className="grid run-stats">
        {figures.map(([label, n]) => (
          <div key={label} className="card stat">
            <dt className="stat-label">{label}</dt>
            <dd className="stat-value">{formatCount(n)}</dd>
          </div>
        ))}
      </dl>
      <RunProgress stats={stats} expected={live?.isRunning ? live.expected : undefined} />
    </>
  );
}
