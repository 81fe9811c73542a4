/**
 * `/projects/:projectId/sessions`: exploratory sessions, newest first, filtered open/closed (the list
 * endpoint's `status`), paged in the URL. Writers start a session with its charter.
 */
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { $api } from '../../api/client';
import { keepSameList } from '../../api/lists';
import { useProjectAccess } from '../../api/account';
import { href, PAGES } from '../../app/paths';
import { Page } from '../../ui/Page';
import { EmptyPageText, pageNumber, Pagination } from '../../ui/Pagination';
import { formatDateTime } from '../../ui/format';
import { oneOf, PAGE_NUMBER, useSearchState } from '../../ui/search-state';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { OpenBadge } from './components/OpenBadge';
import { EMPTY_SESSION, SessionForm, sessionCreateBody } from './components/SessionForm';
import { P, useRefresh, useReleaseOptions } from './data';
import { Tags } from './components/Tags';
import { PAGE_SIZES, pageSize } from './values';
import './manual.css';

export function SessionsPage() {
  const { projectId = '' } = useParams();
  const { canWrite } = useProjectAccess(projectId);
  const [q, set] = useSearchState(['status', 'page', 'limit'] as const, {
    status: oneOf(['open', 'closed']),
    page: PAGE_NUMBER,
    limit: oneOf(PAGE_SIZES),
  });
  const [creating, setCreating] = useState(false);
  const status = q.status === 'open' || q.status === 'closed' ? q.status : undefined;
  const sessions = $api.useQuery(
    'get',
    P.sessions,
    { params: { path: { projectId }, query: { page: pageNumber(q.page), limit: pageSize(q.limit), status } } },
    { placeholderData: keepSameList({ projectId }) },
  );
  const releases = useReleaseOptions(projectId);
  const releaseName = new Map((releases.data?.data ?? []).map((r) => [r._id, r.name]));

  return (
    <Page
      title="Exploratory sessions"
      subtitle="Time-boxed exploration with a charter"
      actions={
        canWrite ? (
          <button type="button" className="button button-primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
            New session
          </button>
        ) : null
      }
    >
      {canWrite && creating ? <CreateSession projectId={projectId} /> : null}
      <div className="filters">
        <div className="field">
          <label htmlFor="session-status">Status</label>
          <select id="session-status" value={status ?? ''} onChange={(e) => set({ status: e.target.value || undefined, page: undefined })}>
            <option value="">All sessions</option>
            <option value="open">Open</option>
            <option value="closed">Closed</option>
          </select>
        </div>
      </div>
      {sessions.isPending ? (
        <Loading label="Loading sessions…" />
      ) : sessions.error ? (
        <ErrorView error={sessions.error} />
      ) : sessions.data.data.length === 0 ? (
        <Empty>
          <EmptyPageText
            pagination={sessions.data.pagination}
            none={status ? `No ${status} sessions.` : 'No exploratory sessions yet.'}
            onFirst={() => set({ page: undefined })}
          />
        </Empty>
      ) : (
        <>
          <div className="table-scroll" aria-busy={sessions.isPlaceholderData || undefined}>
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Assignee</th>
                  <th scope="col">Release</th>
                  <th scope="col">Environment</th>
                  <th scope="col" className="num">
                    Estimate
                  </th>
                  <th scope="col">Tags</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {sessions.data.data.map((s) => (
                  <tr key={s._id}>
                    <td>
                      <Link to={href(PAGES.session, { projectId, sessionId: s._id })}>{s.name}</Link>
                    </td>
                    <td>
                      <OpenBadge status={s.status} />
                    </td>
                    <td>{s.assignee?.name ?? '—'}</td>
                    <td>
                      {s.releaseId ? (
                        <Link to={href(PAGES.release, { projectId, releaseId: s.releaseId })}>
                          {releaseName.get(s.releaseId) ?? 'Release'}
                        </Link>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td>{s.environment ?? '—'}</td>
                    <td className="num">{s.estimate === null ? '—' : `${s.estimate} min`}</td>
                    <td>
                      <Tags tags={s.tags} />
                    </td>
                    <td>{formatDateTime(s.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pagination pagination={sessions.data.pagination} onPage={(p) => set({ page: p > 1 ? p : undefined })} />
        </>
      )}
    </Page>
  );
}

function CreateSession({ projectId }: { projectId: string }) {
  const create = $api.useMutation('post', P.sessions);
  const releases = useReleaseOptions(projectId);
  const refresh = useRefresh();
  const navigate = useNavigate();
  return (
    <section className="card" aria-labelledby="new-session-heading">
      <h2 id="new-session-heading">New session</h2>
      <SessionForm
        initial={EMPTY_SESSION}
        releases={releases.data?.data ?? []}
        submitLabel="Start session"
        error={create.error}
        pending={create.isPending}
        onSubmit={(d) =>
          create.mutate(
            { params: { path: { projectId } }, body: sessionCreateBody(d) },
            {
              onSuccess: (res) => {
                void refresh(P.sessions);
                navigate(href(PAGES.session, { projectId, sessionId: res.data._id }));
              },
            },
          )
        }
      />
    </section>
  );
}
