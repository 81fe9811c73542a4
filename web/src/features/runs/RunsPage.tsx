/**
 * `/projects/:projectId/runs`: automated runs, newest first, filtered by branch, environment, status and a date
 * window (all in the URL), paged; while any run on the page is running, the page asks again every few seconds so
 * its progress moves.
 */
import { type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { $api } from '../../api/client';
import { keepSameList } from '../../api/lists';
import { href, PAGES } from '../../app/paths';
import { Breakable } from '../../ui/Breakable';
import { Page } from '../../ui/Page';
import { EmptyPageText, pageNumber, Pagination } from '../../ui/Pagination';
import { StatusBadge } from '../../ui/StatusBadge';
import { formatDateTime, formatDuration } from '../../ui/format';
import { oneOf, PAGE_NUMBER, type Reader, useDraftFields, useSearchState } from '../../ui/search-state';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { RunProgress } from './components/RunProgress';
import { POLL_MS, RUN_STATUSES, runTitle, shortHash, type Run } from './data';
import './runs.css';

const KEYS = ['branch', 'environment', 'status', 'from', 'to', 'page'] as const;
const LIMIT = 25;

/** A day (YYYY-MM-DD from a date input) as the start or the end of that UTC day. */
const dayStart = (day: string) => `${day}T00:00:00.000Z`;
const dayEnd = (day: string) => `${day}T23:59:59.999Z`;
/** `value` if it is a real day written YYYY-MM-DD. */
const utcDay = (value: string | undefined) =>
  value &&
  /^\d{4}-\d{2}-\d{2}$/.test(value) &&
  !Number.isNaN(Date.parse(dayStart(value))) &&
  new Date(dayStart(value)).toISOString().startsWith(value)
    ? value
    : undefined;

/**
 * The window's days as a date input gives them: an edited link's garbage (`from=abc`, 2026-02-30) is dropped and a
 * reversed window is turned round (in the URL too: both were sent as they were, and the API's 400 left the list a
 * dead end).
 */
function dayWindow(query: Readonly<Record<string, string | undefined>>) {
  const [from, to] = [utcDay(query.from), utcDay(query.to)];
  return from && to && from > to ? { from: to, to: from } : { from, to };
}
const READERS: Partial<Record<(typeof KEYS)[number], Reader>> = {
  status: oneOf(RUN_STATUSES),
  from: (_, query) => dayWindow(query).from,
  to: (_, query) => dayWindow(query).to,
  page: PAGE_NUMBER,
};

export function RunsPage() {
  const { projectId = '' } = useParams();
  const [q, set] = useSearchState(KEYS, READERS);
  const status = RUN_STATUSES.find((s) => s === q.status);
  // The API takes both ends of a window or neither: one day given alone is that day.
  const from = q.from ?? q.to;
  const to = q.to ?? q.from;
  const runs = $api.useQuery(
    'get',
    '/api/v1/public/{projectId}/test-runs',
    {
      params: {
        path: { projectId },
        query: {
          page: pageNumber(q.page),
          limit: LIMIT,
          branch: q.branch || undefined,
          environment: q.environment || undefined,
          status,
          start_date: from ? dayStart(from) : undefined,
          end_date: to ? dayEnd(to) : undefined,
        },
      },
    },
    {
      refetchInterval: (query) => (query.state.data?.data.some((r) => r.status === 'running') ? POLL_MS : false),
      placeholderData: keepSameList({ projectId }),
    },
  );

  const filterForm = useDraftFields([q.branch, q.environment, q.from, q.to]);
  const onFilter = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: string) => String(f.get(k) ?? '').trim();
    set({ branch: text('branch'), environment: text('environment'), from: text('from'), to: text('to'), page: undefined });
  };

  return (
    <Page title="Runs" subtitle="Automated test runs, newest first">
      <form className="filters" role="search" aria-label="Filter runs" onSubmit={onFilter} ref={filterForm}>
        <label>
          Branch
          <input name="branch" defaultValue={q.branch ?? ''} />
        </label>
        <label>
          Environment
          <input name="environment" defaultValue={q.environment ?? ''} />
        </label>
        <label>
          Status
          <select value={status ?? ''} onChange={(e) => set({ status: e.target.value, page: undefined })}>
            <option value="">Any status</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        {/* UTC days, so that a link shows its sender's runs to a reader anywhere; the list shows local times. */}
        <label>
          From (UTC)
          <input type="date" name="from" defaultValue={q.from ?? ''} />
        </label>
        <label>
          To (UTC)
          <input type="date" name="to" defaultValue={q.to ?? ''} />
        </label>
        <button type="submit" className="button">
          Apply
        </button>
      </form>
      {runs.isPending ? (
        <Loading label="Loading runs…" />
      ) : runs.error ? (
        <ErrorView error={runs.error} />
      ) : runs.data.data.length === 0 ? (
        <Empty>
          <EmptyPageText
            pagination={runs.data.pagination}
            none={
              q.branch || q.environment || status || from
                ? 'No run matches these filters.'
                : 'No runs yet: send a report to the ingestion API.'
            }
            onFirst={() => set({ page: undefined })}
          />
        </Empty>
      ) : (
        <>
          <div className="table-scroll" aria-busy={runs.isPlaceholderData || undefined}>
            <table className="table">
              <caption className="visually-hidden">Runs</caption>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Status</th>
                  <th scope="col">Branch</th>
                  <th scope="col">Environment</th>
                  <th scope="col">Commit</th>
                  <th scope="col">Started</th>
                  <th scope="col" className="num">
                    Duration
                  </th>
                  <th scope="col">Results</th>
                </tr>
              </thead>
              <tbody>
                {runs.data.data.map((run) => (
                  <RunRow key={run.id} projectId={projectId} run={run} />
                ))}
              </tbody>
            </table>
          </div>
          <Pagination pagination={runs.data.pagination} onPage={(page) => set({ page })} />
        </>
      )}
    </Page>
  );
}

function RunRow({ projectId, run }: { projectId: string; run: Run }) {
  const git = run.metadata.git;
  return (
    <tr>
      <td className="nowrap">
        <Link to={href(PAGES.run, { projectId, runId: run.id })}>{runTitle(run)}</Link>
      </td>
      <td>
        <StatusBadge status={run.status} />
      </td>
      <td className="mono">{git.branch ? <Breakable text={git.branch} /> : '—'}</td>
      <td>{git.environment || '—'}</td>
      <td title={git.commit.message}>
        <span className="clamp-2">
          {git.commit.hash ? <span className="mono">{shortHash(git.commit.hash)}</span> : '—'} {git.commit.message.split('\n')[0]}
        </span>
      </td>
      <td>{formatDateTime(run.startTime)}</td>
      <td className="num">{formatDuration(run.duration)}</td>
      <td>
        <RunProgress stats={run.testStats} />
      </td>
    </tr>
  );
}
