/** Tests with their figures over a window (top lists, the explorer), each linking to its history page. */
import { Link } from 'react-router';
import type { Schemas } from '../../../api/client';
import { href, PAGES } from '../../../app/paths';
import { Breakable } from '../../../ui/Breakable';
import { formatCount, formatDuration, formatPercent } from '../../../ui/format';
import { Empty } from '../../../ui/states';

export function TestsTable({
  projectId,
  tests,
  caption,
  empty,
}: {
  projectId: string;
  tests: Schemas['AnalyticsTest'][];
  caption: string;
  empty: string;
}) {
  if (tests.length === 0) return <Empty>{empty}</Empty>;
  return (
    <table className="table">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Test</th>
          <th scope="col" className="num">
            Runs
          </th>
          <th scope="col" className="num">
            Failure rate
          </th>
          <th scope="col" className="num">
            Flaky rate
          </th>
          <th scope="col" className="num">
            p95
          </th>
        </tr>
      </thead>
      <tbody>
        {tests.map((t) => (
          <tr key={t.testId}>
            <td>
              <Link to={href(PAGES.test, { projectId, testId: t.testId })}>{t.title}</Link>
              <div className="muted mono">
                <Breakable text={t.file} />
              </div>
            </td>
            <td className="num">{formatCount(t.executions)}</td>
            <td className="num">{formatPercent(t.failureRate)}</td>
            <td className="num">{formatPercent(t.flakyRate)}</td>
            <td className="num">{formatDuration(t.p95Duration)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
