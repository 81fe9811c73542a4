/**
 * `/projects/:projectId/test-case-explorer` — tests by health over the window: flaky, failing, slow or stable
 * (the API's classification), sorted by flaky rate, failure rate, p95 or runs, 10, 25 or 50 a page; status, sort,
 * order, page size and page in the URL; each test links to its history.
 */
import { useParams } from 'react-router';
import { $api } from '../../api/client';
import { keepSameList } from '../../api/lists';
import { Page } from '../../ui/Page';
import { EmptyPageText, pageNumber, Pagination } from '../../ui/Pagination';
import { oneOf, PAGE_NUMBER, useSearchState } from '../../ui/search-state';
import { ErrorView, Loading } from '../../ui/states';
import { TestsTable } from './components/TestsTable';
import { windowOf, WINDOWS, WindowTabs } from './components/WindowTabs';
import './analytics.css';

const STATUSES = ['flaky', 'failing', 'slow', 'stable'] as const;
const SORTS = [
  ['flaky_rate', 'Flaky rate'],
  ['failure_rate', 'Failure rate'],
  ['p95_duration', 'p95 duration'],
  ['executions', 'Runs'],
] as const;
/** The page sizes the explorer's endpoint accepts (spec §4.1: not 100, unlike the other lists). */
const PAGE_SIZES = [10, 25, 50] as const;

export function ExplorerPage() {
  const { projectId = '' } = useParams();
  const [q, set] = useSearchState(['days', 'status', 'sortBy', 'order', 'limit', 'page'] as const, {
    days: oneOf(WINDOWS),
    status: oneOf(STATUSES),
    sortBy: oneOf(SORTS.map(([k]) => k)),
    order: oneOf(['asc', 'desc']),
    limit: oneOf(PAGE_SIZES),
    page: PAGE_NUMBER,
  });
  const days = windowOf(q.days);
  const status = STATUSES.find((s) => s === q.status);
  const sortBy = SORTS.find(([k]) => k === q.sortBy)?.[0];
  const order = q.order === 'asc' ? 'asc' : q.order === 'desc' ? 'desc' : undefined;
  const limit = PAGE_SIZES.find((s) => String(s) === q.limit) ?? 25;
  const tests = $api.useQuery(
    'get',
    '/api/v1/public/{projectId}/test-case-explorer',
    { params: { path: { projectId }, query: { days, status, sortBy, order, page: pageNumber(q.page), limit } } },
    { placeholderData: keepSameList({ projectId }) },
  );
  return (
    <Page title="Test case explorer" subtitle="Tests by health: flaky, failing, slow or stable">
      <WindowTabs days={days} />
      <div className="filters">
        <label>
          Health
          <select value={status ?? ''} onChange={(e) => set({ status: e.target.value, page: undefined })}>
            <option value="">Every test</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sort by
          <select value={sortBy ?? ''} onChange={(e) => set({ sortBy: e.target.value, page: undefined })}>
            <option value="">Default</option>
            {SORTS.map(([k, name]) => (
              <option key={k} value={k}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Order
          <select value={order ?? ''} onChange={(e) => set({ order: e.target.value, page: undefined })}>
            <option value="">Default</option>
            <option value="desc">Highest first</option>
            <option value="asc">Lowest first</option>
          </select>
        </label>
        <label>
          Per page
          <select value={limit} onChange={(e) => set({ limit: e.target.value === '25' ? undefined : e.target.value, page: undefined })}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </div>
      {tests.isPending ? (
        <Loading label="Loading the tests…" />
      ) : tests.error ? (
        <ErrorView error={tests.error} />
      ) : (
        <>
          <div aria-busy={tests.isPlaceholderData || undefined}>
            <TestsTable
              projectId={projectId}
              tests={tests.data.data}
              caption="Tests"
              empty={
                <EmptyPageText
                  pagination={tests.data.pagination}
                  none={status ? `No ${status} test in the last ${days} days.` : `No test ran in the last ${days} days.`}
                  onFirst={() => set({ page: undefined })}
                />
              }
            />
          </div>
          <Pagination pagination={tests.data.pagination} onPage={(page) => set({ page })} />
        </>
      )}
    </Page>
  );
}
