/** `/projects/:projectId/specs` — spec file health over the window: tests, results, rates and durations per file. */
import { useParams } from 'react-router';
import { $api } from '../../api/client';
import { keepSameList } from '../../api/lists';
import { Breakable } from '../../ui/Breakable';
import { Page } from '../../ui/Page';
import { EmptyPageText, pageNumber, Pagination } from '../../ui/Pagination';
import { formatCount, formatDateTime, formatDuration, formatPercent } from '../../ui/format';
import { oneOf, PAGE_NUMBER, useSearchState } from '../../ui/search-state';
import { ScrollRegion } from '../../ui/ScrollRegion';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { windowOf, WINDOWS, WindowTabs } from './components/WindowTabs';
import './analytics.css';

export function SpecsPage() {
  const { projectId = '' } = useParams();
  const [q, set] = useSearchState(['days', 'page'] as const, { days: oneOf(WINDOWS), page: PAGE_NUMBER });
  const days = windowOf(q.days);
  const specs = $api.useQuery(
    'get',
    '/api/v1/public/{projectId}/specs',
    { params: { path: { projectId }, query: { days, page: pageNumber(q.page), limit: 50 } } },
    { placeholderData: keepSameList({ projectId }) },
  );
  return (
    <Page title="Spec health" subtitle="Each spec file's results over the window">
      <WindowTabs days={days} />
      {specs.isPending ? (
        <Loading label="Loading the spec files…" />
      ) : specs.error ? (
        <ErrorView error={specs.error} />
      ) : specs.data.data.length === 0 ? (
        <Empty>
          <EmptyPageText
            pagination={specs.data.pagination}
            none={`No spec file ran in the last ${days} days.`}
            onFirst={() => set({ page: undefined })}
          />
        </Empty>
      ) : (
        <>
          <div aria-busy={specs.isPlaceholderData || undefined}>
            <ScrollRegion label="Spec files">
              <table className="table">
                <caption className="visually-hidden">Spec files</caption>
                <thead>
                  <tr>
                    <th scope="col">File</th>
                    {['Tests', 'Results', 'Pass rate', 'Failure rate', 'Flaky rate', 'p95', 'Last run'].map((h) => (
                      <th key={h} scope="col" className="num">
                        {h}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {specs.data.data.map((s) => (
                    <tr key={s.file}>
                      <td className="mono">
                        <Breakable text={s.file} />
                      </td>
                      <td className="num">{formatCount(s.tests)}</td>
                      <td className="num">{formatCount(s.executions)}</td>
                      <td className="num">{formatPercent(s.passRate)}</td>
                      <td className="num">{formatPercent(s.failureRate)}</td>
                      <td className="num">{formatPercent(s.flakyRate)}</td>
                      <td className="num">{formatDuration(s.p95Duration)}</td>
                      <td className="num">{formatDateTime(s.lastRunAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          </div>
          <Pagination pagination={specs.data.pagination} onPage={(page) => set({ page })} />
        </>
      )}
    </Page>
  );
}
