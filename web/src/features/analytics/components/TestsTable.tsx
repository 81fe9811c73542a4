/** Tests with their figures over a window (top lists, the explorer), each linking to its history page. */
import type { ReactNode } from 'react';
import type { Schemas } from '../../../api/client';
import { formatCount, formatDuration, formatPercent } from '../../../ui/format';
import { Empty } from '../../../ui/states';
import { TestCell } from './TestCell';

export function TestsTable({
  projectId,
  tests,
  caption,
  empty,
}: {
  projectId: string;
  tests: Schemas['AnalyticsTest'][];
  caption: string;
  /** What it says with no test: the list's own words, or where a paged list ends (`EmptyPageText`). */
  empty: ReactNode;
}) {
  if (tests.length === 0) return <Empty>{empty}</Empty>;
  return (
    <div className="table-scroll">
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
                <TestCell projectId={projectId} test={t} />
              </td>
              <td className="num">{formatCount(t.executions)}</td>
              <td className="num">{formatPercent(t.failureRate)}</td>
              <td className="num">{formatPercent(t.flakyRate)}</td>
              <td className="num">{formatDuration(t.p95Duration)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
