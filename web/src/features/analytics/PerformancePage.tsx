/**
 * `/projects/:projectId/analytics/performance` — every test's duration percentiles over the window, slowest p95
 * first: a chart of the 15 slowest, then the whole list (searchable, 50 rows a page, in the URL).
 */
import { lazy, Suspense, useMemo } from 'react';
import { useParams } from 'react-router';
import { $api } from '../../api/client';
import { keepSameList } from '../../api/lists';
import { Page } from '../../ui/Page';
import { EmptyPageText, pageNumber, PagerNav } from '../../ui/Pagination';
import { formatCount, formatDuration, formatPercent } from '../../ui/format';
import { oneOf, PAGE_NUMBER, useSearchState } from '../../ui/search-state';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { TestCell } from './components/TestCell';
import { windowOf, WINDOWS, WindowTabs } from './components/WindowTabs';
import './analytics.css';

const BarsChart = lazy(() => import('./components/BarsChart'));
const PAGE = 50;

export function PerformancePage() {
  const { projectId = '' } = useParams();
  const [q, set] = useSearchState(['days', 'q', 'page'] as const, { days: oneOf(WINDOWS), page: PAGE_NUMBER });
  const days = windowOf(q.days);
  // Paged here, from one answer: another window keeps the one shown (busy) until its answer comes.
  const perf = $api.useQuery(
    'get',
    '/api/v1/public/{projectId}/analytics/test-cases/performance',
    { params: { path: { projectId }, query: { days } } },
    { placeholderData: keepSameList({ projectId }) },
  );
  const busy = perf.isPlaceholderData || undefined;
  const query = (q.q ?? '').trim().toLowerCase();
  const rows = useMemo(
    () => (perf.data?.data ?? []).filter((t) => !query || `${t.title}\n${t.file}`.toLowerCase().includes(query)),
    [perf.data, query],
  );
  const page = pageNumber(q.page);
  const shown = rows.slice((page - 1) * PAGE, page * PAGE);
  return (
    <Page title="Performance" subtitle="Duration percentiles of every test, slowest p95 first">
      <WindowTabs days={days} />
      {perf.isPending ? (
        <Loading label="Loading the percentiles…" />
      ) : perf.error ? (
        <ErrorView error={perf.error} />
      ) : perf.data.data.length === 0 ? (
        <Empty>No test ran in the last {days} days.</Empty>
      ) : (
        <>
          <h2>Slowest tests (p95)</h2>
          <div aria-busy={busy}>
            <Suspense fallback={<Loading label="Loading the chart…" />}>
              <BarsChart
                label="p95 duration of the 15 slowest tests (the figures are in the table below)"
                rows={perf.data.data.slice(0, 15).map((t) => ({ name: t.title.split(' › ').at(-1) ?? t.title, value: t.p95Duration }))}
                format={formatDuration}
              />
            </Suspense>
          </div>
          <h2>All tests</h2>
          <div className="filters" role="search" aria-label="Search tests">
            <label>
              Search
              <input
                type="search"
                value={q.q ?? ''}
                placeholder="Title or file"
                onChange={(e) => set({ q: e.target.value, page: undefined })}
              />
            </label>
            <p className="muted" role="status">
              {formatCount(rows.length)} tests
            </p>
          </div>
          {shown.length === 0 ? (
            // No match, or a page past the list's end (a link kept while the list shrank): say so, and lead back.
            <Empty>
              <EmptyPageText
                pagination={{ page, limit: PAGE, total: rows.length, hasNext: false, hasPrev: page > 1, hasMore: false }}
                none="No test matches this search."
                onFirst={() => set({ page: undefined })}
              />
            </Empty>
          ) : (
            <>
              <div className="table-scroll" aria-busy={busy}>
                <table className="table">
                  <caption className="visually-hidden">Duration percentiles by test</caption>
                  <thead>
                    <tr>
                      <th scope="col">Test</th>
                      {['Runs', 'p50', 'p90', 'p95', 'p99', 'Failure rate'].map((h) => (
                        <th key={h} scope="col" className="num">
                          {h}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {shown.map((t) => (
                      <tr key={t.testId}>
                        <td>
                          <TestCell projectId={projectId} test={t} />
                        </td>
                        <td className="num">{formatCount(t.executions)}</td>
                        <td className="num">{formatDuration(t.p50Duration)}</td>
                        <td className="num">{formatDuration(t.p90Duration)}</td>
                        <td className="num">{formatDuration(t.p95Duration)}</td>
                        <td className="num">{formatDuration(t.p99Duration)}</td>
                        <td className="num">{formatPercent(t.failureRate)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <PagerNav label="Pages">
                <button type="button" className="button" disabled={page <= 1} onClick={() => set({ page: page - 1 })}>
                  Previous
                </button>
                <span>
                  Page {page} of {Math.max(1, Math.ceil(rows.length / PAGE))}
                </span>
                <button type="button" className="button" disabled={page * PAGE >= rows.length} onClick={() => set({ page: page + 1 })}>
                  Next
                </button>
              </PagerNav>
            </>
          )}
        </>
      )}
    </Page>
  );
}
