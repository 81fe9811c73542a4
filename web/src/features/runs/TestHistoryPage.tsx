/**
 * `/projects/:projectId/tests/:testId` — one test across runs (the `history` link of debug bundles): its stability
 * over the results listed, a timeline of results by run (newest first, each a link to that result), and a chart of
 * its duration over those runs. Pages of 100 results, newest first.
 */
import { lazy, Suspense } from 'react';
import { Link, useParams } from 'react-router';
import { $api } from '../../api/client';
import { keepSameList } from '../../api/lists';
import { href, PAGES } from '../../app/paths';
import { Breakable } from '../../ui/Breakable';
import { Page } from '../../ui/Page';
import { PagerNav } from '../../ui/Pagination';
import { StatusBadge } from '../../ui/StatusBadge';
import { TestPlace } from '../../ui/TestPlace';
import { formatDateTime, formatDuration, formatPercent } from '../../ui/format';
import { useDraftFields, useSearchState, wholeNumber } from '../../ui/search-state';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { statusLabel } from './data';
import './runs.css';

const DurationChart = lazy(() => import('./components/DurationChart'));
const LIMIT = 100;

export function TestHistoryPage() {
  const { projectId = '', testId = '' } = useParams();
  // A whole number up to the API's highest (100,000,000), else the newest results: `offset=1.5` or `1e400` was sent
  // as it was, and the API's 400 left the page a dead end in its validator's words.
  const [q, set] = useSearchState(['branch', 'offset'] as const, { offset: wholeNumber(0, 100_000_000) });
  const offset = Number(q.offset ?? 0);
  const history = $api.useQuery(
    'get',
    '/api/v1/public/{projectId}/test-cases/history',
    { params: { path: { projectId }, query: { testId, branch: q.branch || undefined, offset, limit: LIMIT } } },
    // Older or newer results, or another branch, of this test: the ones shown stay (busy) while they load. The test
    // is named in the query, not the path: never another test's results.
    { placeholderData: keepSameList({ projectId }, { testId }) },
  );

  if (history.isPending) return <Loading label="Loading the history…" />;
  if (history.error) return <Page title="Test history">{<ErrorView error={history.error} />}</Page>;
  const items = history.data.data;
  const latest = items[0];
  const { pagination } = history.data;
  // A branch with no result of this test, or an offset past its results (a link kept while they were deleted): the
  // test may well exist, so the page says what is empty and keeps the way back (not "Test not found", a dead end).
  const pastEnd = offset > 0 && pagination.total > 0;
  if (!latest && (q.branch || pastEnd))
    return (
      <Page title="Test history">
        <BranchFilter branch={q.branch} onBranch={(branch) => set({ branch, offset: undefined })} />
        <div className="callout" role="alert">
          <p>
            {pastEnd ? (
              <>
                Nothing past result {pagination.total}: the history of this test{q.branch ? ` on branch ${q.branch}` : ''} ends there.{' '}
                <button type="button" className="link-button" onClick={() => set({ offset: undefined })}>
                  Go to the newest results
                </button>
              </>
            ) : (
              <>
                <strong>No result on branch {q.branch}.</strong>{' '}
                <button type="button" className="link-button" onClick={() => set({ branch: undefined, offset: undefined })}>
                  Show every branch
                </button>
              </>
            )}
          </p>
        </div>
      </Page>
    );
  if (!latest)
    return (
      <Page title="Test history">
        <div className="callout" role="alert">
          <p>
            <strong>Test not found.</strong> No result of this test exists in this project.
          </p>
          <p>
            <Link to={href(PAGES.runs, { projectId })}>All runs</Link>
          </p>
        </div>
      </Page>
    );
  const busy = history.isPlaceholderData || undefined;
  const passed = items.filter((i) => i.outcome === 'expected').length;
  const counted = items.filter((i) => i.outcome !== 'skipped').length;

  return (
    <Page title={latest.title} subtitle={<TestPlace file={latest.file} projectName={latest.projectName} />}>
      <dl className="grid run-stats">
        <div className="card stat">
          <dt className="stat-label">Stability (passed / runs)</dt>
          <dd className="stat-value">{formatPercent(counted ? (passed / counted) * 100 : 0)}</dd>
        </div>
        <div className="card stat">
          <dt className="stat-label">Results listed</dt>
          <dd className="stat-value">
            {items.length} of {pagination.total}
          </dd>
        </div>
        <div className="card stat">
          <dt className="stat-label">Failed · flaky</dt>
          <dd className="stat-value">
            {items.filter((i) => i.outcome === 'unexpected').length} · {items.filter((i) => i.outcome === 'flaky').length}
          </dd>
        </div>
      </dl>
      <BranchFilter branch={q.branch} onBranch={(branch) => set({ branch, offset: undefined })} />

      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Results by run</h2>
        <ol className="history-timeline" aria-busy={busy}>
          {items.map((i) => (
            <li key={i.caseId}>
              <Link
                className={`badge badge-${i.outcome === 'expected' ? 'good' : i.outcome === 'unexpected' ? 'bad' : i.outcome === 'flaky' ? 'warn' : 'neutral'}`}
                to={href(PAGES.testCase, { projectId, runId: i.runId, testCaseId: i.caseId })}
                aria-label={`Run #${i.runCounter}: ${statusLabel(i.status)}`}
                title={`Run #${i.runCounter} · ${statusLabel(i.status)} · ${formatDateTime(i.startedAt)}`}
              >
                #{i.runCounter}
              </Link>
            </li>
          ))}
        </ol>
      </section>

      <section aria-labelledby="duration-title">
        <h2 id="duration-title">Duration</h2>
        <div aria-busy={busy}>
          <Suspense fallback={<Loading label="Loading the chart…" />}>
            <DurationChart items={items} />
          </Suspense>
        </div>
      </section>

      <section aria-labelledby="results-title">
        <h2 id="results-title">Results</h2>
        {items.length === 0 ? (
          <Empty>No results.</Empty>
        ) : (
          <div className="table-scroll" aria-busy={busy}>
            <table className="table">
              <caption className="visually-hidden">Results of this test, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Status</th>
                  <th scope="col">Branch</th>
                  <th scope="col">Started</th>
                  <th scope="col" className="num">
                    Duration
                  </th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {items.map((i) => (
                  <tr key={i.caseId}>
                    <td>
                      <Link to={href(PAGES.testCase, { projectId, runId: i.runId, testCaseId: i.caseId })}>Run #{i.runCounter}</Link>
                    </td>
                    <td>
                      <StatusBadge status={i.status} label={statusLabel(i.status)} />
                    </td>
                    <td className="mono">{i.branch ? <Breakable text={i.branch} /> : '—'}</td>
                    <td>{formatDateTime(i.startedAt)}</td>
                    <td className="num">{formatDuration(i.duration)}</td>
                    <td title={i.error?.message}>
                      <span className="clamp-2">{i.error?.message.split('\n')[0] ?? ''}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <PagerNav label="History pages">
          <button
            type="button"
            className="button"
            disabled={offset === 0}
            onClick={() => set({ offset: Math.max(0, offset - LIMIT) || undefined })}
          >
            Newer
          </button>
          <button type="button" className="button" disabled={!pagination.hasNext} onClick={() => set({ offset: offset + LIMIT })}>
            Older
          </button>
        </PagerNav>
      </section>
    </Page>
  );
}

/** The history's branch filter (in the URL): also shown when a branch has no result, so the user can change it. */
function BranchFilter({ branch, onBranch }: { branch: string | undefined; onBranch: (branch: string) => void }) {
  const form = useDraftFields([branch]);
  return (
    <form
      ref={form}
      className="filters"
      role="search"
      aria-label="Filter the history"
      onSubmit={(e) => {
        e.preventDefault();
        onBranch(String(new FormData(e.currentTarget).get('branch') ?? '').trim());
      }}
    >
      <label>
        Branch
        <input name="branch" defaultValue={branch ?? ''} />
      </label>
      <button type="submit" className="button">
        Apply
      </button>
    </form>
  );
}
