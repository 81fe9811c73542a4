/**
 * `/projects/:projectId/analytics` — the project over a window of 7, 30 or 90 days: runs and results, rates,
 * duration percentiles, the daily trend (chart), the tests that fail, flake and take longest, and the figures by
 * branch, environment and tag.
 */
import { lazy, Suspense } from 'react';
import { useParams } from 'react-router';
import { $api } from '../../api/client';
import type { paths } from '@assay/client';
import { Breakable } from '../../ui/Breakable';
import { Page } from '../../ui/Page';
import { formatCount, formatDuration, formatPercent } from '../../ui/format';
import { ScrollRegion } from '../../ui/ScrollRegion';
import { oneOf, useSearchState } from '../../ui/search-state';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { Figures } from './components/Figures';
import { TestsTable } from './components/TestsTable';
import { windowOf, WINDOWS, WindowTabs } from './components/WindowTabs';
import './analytics.css';

const TrendChart = lazy(() => import('./components/TrendChart'));

export function SummaryPage() {
  const { projectId = '' } = useParams();
  const [q] = useSearchState(['days'] as const, { days: oneOf(WINDOWS) });
  const days = windowOf(q.days);
  const summary = $api.useQuery('get', '/api/v1/public/{projectId}/analytics/summary', {
    params: { path: { projectId }, query: { days } },
  });
  return (
    <Page title="Analytics" subtitle={summary.data ? `${summary.data.data.from} to ${summary.data.data.until}` : undefined}>
      <WindowTabs days={days} />
      {summary.isPending ? (
        <Loading label="Loading the figures…" />
      ) : summary.error ? (
        <ErrorView error={summary.error} />
      ) : summary.data.data.totals.runs === 0 ? (
        <Empty>No runs in the last {days} days.</Empty>
      ) : (
        <Summary projectId={projectId} s={summary.data.data} />
      )}
    </Page>
  );
}

type SummaryData = paths['/api/v1/public/{projectId}/analytics/summary']['get']['responses'][200]['content']['application/json']['data'];

function Summary({ projectId, s }: { projectId: string; s: SummaryData }) {
  return (
    <>
      <Figures
        label="Figures of the window"
        items={[
          ['Runs', formatCount(s.totals.runs)],
          ['Test results', formatCount(s.totals.executions)],
          ['Pass rate', formatPercent(s.passRate)],
          ['Failure rate', formatPercent(s.failureRate)],
          ['Flaky rate', formatPercent(s.flakyRate)],
          ['Median duration', formatDuration(s.durationPercentiles.p50)],
          ['p95 duration', formatDuration(s.durationPercentiles.p95)],
        ]}
      />
      <h2>Trend</h2>
      <Suspense fallback={<Loading label="Loading the chart…" />}>
        <TrendChart days={s.trend} label="Pass, failure and flaky rate by day" />
      </Suspense>
      <div className="columns">
        <section aria-labelledby="failing-title">
          <h2 id="failing-title">Most failing</h2>
          <TestsTable projectId={projectId} tests={s.topFailing} caption="Most failing tests" empty="No failing test." />
        </section>
        <section aria-labelledby="flaky-title">
          <h2 id="flaky-title">Most flaky</h2>
          <TestsTable projectId={projectId} tests={s.topFlaky} caption="Most flaky tests" empty="No flaky test." />
        </section>
        <section aria-labelledby="slowest-title">
          <h2 id="slowest-title">Slowest</h2>
          <TestsTable projectId={projectId} tests={s.slowest} caption="Slowest tests" empty="No test ran." />
        </section>
      </div>
      {(
        [
          ['By branch', s.byBranch],
          ['By environment', s.byEnvironment],
          ['By tag', s.byTag],
        ] as const
      ).map(([title, rows]) => (
        <section key={title} aria-label={title}>
          <h2>{title}</h2>
          {rows.length === 0 ? (
            <Empty>Nothing to break down.</Empty>
          ) : (
            <ScrollRegion label={title}>
              <table className="table">
                <caption className="visually-hidden">{title}</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col" className="num">
                      Runs
                    </th>
                    <th scope="col" className="num">
                      Results
                    </th>
                    <th scope="col" className="num">
                      Pass rate
                    </th>
                    <th scope="col" className="num">
                      Flaky rate
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((b) => (
                    <tr key={b.name}>
                      <td className="mono">{b.name ? <Breakable text={b.name} /> : '—'}</td>
                      <td className="num">{formatCount(b.runs)}</td>
                      <td className="num">{formatCount(b.executions)}</td>
                      <td className="num">{formatPercent(b.passRate)}</td>
                      <td className="num">{formatPercent(b.flakyRate)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
        </section>
      ))}
    </>
  );
}
