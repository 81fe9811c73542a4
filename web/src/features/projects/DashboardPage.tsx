/**
 * `/projects/:projectId` — the project at a glance over the last 30 days: runs by status, pass rate and its daily
 * trend (chart), the most flaky and most failing tests, and the runs running now with their live progress (asked
 * again every few seconds while any runs).
 */
import { lazy, Suspense } from 'react';
import { Link, useParams } from 'react-router';
import { $api } from '../../api/client';
import { href, PAGES } from '../../app/paths';
import { Page } from '../../ui/Page';
import { formatCount, formatDuration, formatPercent } from '../../ui/format';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { Figures } from '../analytics/components/Figures';
import { TestsTable } from '../analytics/components/TestsTable';
import { RunProgress } from '../runs/components/RunProgress';
import { POLL_MS, runTitle } from '../runs/data';
import '../analytics/analytics.css';
import '../runs/runs.css';

const TrendChart = lazy(() => import('../analytics/components/TrendChart'));
const BarsChart = lazy(() => import('../analytics/components/BarsChart'));

export function DashboardPage() {
  const { projectId = '' } = useParams();
  const dashboard = $api.useQuery(
    'get',
    '/api/v1/public/{projectId}/dashboard',
    { params: { path: { projectId } } },
    { refetchInterval: (q) => ((q.state.data?.data.activeRuns.length ?? 0) > 0 ? POLL_MS : false) },
  );
  if (dashboard.isPending) return <Page title="Dashboard">{<Loading label="Loading the dashboard…" />}</Page>;
  if (dashboard.error) return <Page title="Dashboard">{<ErrorView error={dashboard.error} />}</Page>;
  const d = dashboard.data.data;
  const c = d.runCounts;
  // Without a test result there is no rate and no average (the API answers 0: a pass rate of 0.0% read as "all failed").
  const ran = d.totals.executions > 0;
  const rate = (value: number) => formatPercent(ran ? value : null);
  return (
    <Page title="Dashboard" subtitle={`Last ${d.days} days (${d.from} to ${d.until})`}>
      <Figures
        label="Figures of the last 30 days"
        items={[
          ['Runs', formatCount(c.total)],
          ['Pass rate', rate(d.totals.passRate)],
          ['Flaky rate', rate(d.totals.flakyRate)],
          ['Test results', formatCount(d.totals.executions)],
          ['Average test duration', formatDuration(ran ? d.totals.avgDuration : null)],
        ]}
      />
      <section aria-labelledby="active-title">
        <h2 id="active-title">Running now</h2>
        {d.activeRuns.length === 0 ? (
          <Empty>No run is running.</Empty>
        ) : (
          <ul className="link-list">
            {d.activeRuns.map((r) => (
              <li key={r.id} className="facts">
                <Link to={href(PAGES.run, { projectId, runId: r.id })}>{runTitle(r)}</Link>
                <span className="mono">{r.metadata.git.branch}</span>
                <RunProgress stats={r.testStats} />
              </li>
            ))}
          </ul>
        )}
      </section>
      {c.total === 0 ? (
        <Empty>
          No runs in the last {d.days} days. Send a report to the ingestion API, then see it under{' '}
          <Link to={href(PAGES.runs, { projectId })}>Runs</Link>.
        </Empty>
      ) : (
        <>
          <div className="columns">
            <section aria-labelledby="trend-title">
              <h2 id="trend-title">Pass rate by day</h2>
              <Suspense fallback={<Loading label="Loading the chart…" />}>
                <TrendChart days={d.passRateTrend} label="Pass, failure and flaky rate by day over the last 30 days" />
              </Suspense>
            </section>
            <section aria-labelledby="status-title">
              <h2 id="status-title">Runs by status</h2>
              <Suspense fallback={<Loading label="Loading the chart…" />}>
                <BarsChart
                  label={`Runs by status: ${c.passed} passed, ${c.failed} failed, ${c.interrupted} interrupted, ${c.incomplete} incomplete, ${c.running} running`}
                  rows={[
                    { name: 'passed', value: c.passed },
                    { name: 'failed', value: c.failed },
                    { name: 'interrupted', value: c.interrupted },
                    { name: 'incomplete', value: c.incomplete },
                    { name: 'running', value: c.running },
                  ]}
                />
              </Suspense>
            </section>
          </div>
          <div className="columns">
            <section aria-labelledby="flaky-title">
              <h2 id="flaky-title">Most flaky</h2>
              <TestsTable projectId={projectId} tests={d.topFlaky} caption="Most flaky tests" empty="No flaky test." />
            </section>
            <section aria-labelledby="failing-title">
              <h2 id="failing-title">Most failing</h2>
              <TestsTable projectId={projectId} tests={d.topFailing} caption="Most failing tests" empty="No failing test." />
            </section>
          </div>
        </>
      )}
    </Page>
  );
}
