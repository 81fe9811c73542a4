/**
 * `/projects/:projectId/releases`: the project's releases, newest first, searchable by name and filtered by
 * completion (the list endpoint's `search` and `isCompleted`), paged in the URL. Writers create a release.
 */
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { $api } from '../../api/client';
import { keepSameList } from '../../api/lists';
import { useProjectAccess } from '../../api/account';
import { href, PAGES } from '../../app/paths';
import { Page } from '../../ui/Page';
import { EmptyPageText, pageNumber, Pagination } from '../../ui/Pagination';
import { StatusBadge } from '../../ui/StatusBadge';
import { formatDate } from '../../ui/format';
import { oneOf, PAGE_NUMBER, useSearchState } from '../../ui/search-state';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { TextField } from './components/fields';
import { EMPTY_RELEASE, ReleaseForm, releaseCreateBody } from './components/ReleaseForm';
import { releaseStatus } from './components/ReleaseSelect';
import { P, useRefresh, useReleaseOptions } from './data';
import { PAGE_SIZES, pageSize, valueLabel } from './values';
import './manual.css';

export function ReleasesPage() {
  const { projectId = '' } = useParams();
  const { canWrite } = useProjectAccess(projectId);
  const [q, set] = useSearchState(['search', 'completed', 'page', 'limit'] as const, {
    completed: oneOf(['yes', 'no']),
    page: PAGE_NUMBER,
    limit: oneOf(PAGE_SIZES),
  });
  const [search, setSearch] = useState(q.search ?? '');
  const [creating, setCreating] = useState(false);
  const limit = pageSize(q.limit);
  const releases = $api.useQuery(
    'get',
    P.releases,
    {
      params: {
        path: { projectId },
        query: {
          page: pageNumber(q.page),
          limit,
          search: q.search,
          isCompleted: q.completed === 'yes' ? true : q.completed === 'no' ? false : undefined,
        },
      },
    },
    { placeholderData: keepSameList({ projectId }) },
  );
  const options = useReleaseOptions(projectId);
  const names = new Map([...(options.data?.data ?? []), ...(releases.data?.data ?? [])].map((r) => [r._id, r.name]));

  return (
    <Page
      title="Releases"
      subtitle="What is being tested for which version"
      actions={
        canWrite ? (
          <button type="button" className="button button-primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
            New release
          </button>
        ) : null
      }
    >
      {canWrite && creating ? <CreateRelease projectId={projectId} /> : null}
      <form
        className="filters"
        role="search"
        aria-label="Filter releases"
        onSubmit={(e) => {
          e.preventDefault();
          set({ search: search.trim() || undefined, page: undefined });
        }}
      >
        <TextField label="Search by name" type="search" value={search} onChange={setSearch} />
        <button type="submit" className="button">
          Search
        </button>
        <div className="field">
          <label htmlFor="release-completion">Completion</label>
          <select
            id="release-completion"
            value={q.completed ?? ''}
            onChange={(e) => set({ completed: e.target.value || undefined, page: undefined })}
          >
            <option value="">All releases</option>
            <option value="no">Not completed</option>
            <option value="yes">Completed</option>
          </select>
        </div>
      </form>
      {releases.isPending ? (
        <Loading label="Loading releases…" />
      ) : releases.error ? (
        <ErrorView error={releases.error} />
      ) : releases.data.data.length === 0 ? (
        <Empty>
          <EmptyPageText
            pagination={releases.data.pagination}
            none={q.search || q.completed ? 'No release matches.' : 'No releases yet.'}
            onFirst={() => set({ page: undefined })}
          />
        </Empty>
      ) : (
        <>
          <div className="table-scroll" aria-busy={releases.isPlaceholderData || undefined}>
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Dates</th>
                  <th scope="col">Type</th>
                  <th scope="col">Branch</th>
                  <th scope="col">Environment</th>
                  <th scope="col">Build</th>
                </tr>
              </thead>
              <tbody>
                {releases.data.data.map((r) => (
                  <tr key={r._id}>
                    <td>
                      <Link to={href(PAGES.release, { projectId, releaseId: r._id })}>{r.name}</Link>
                      {r.parentReleaseId ? <span className="muted"> · in {names.get(r.parentReleaseId) ?? 'another release'}</span> : null}
                    </td>
                    <td>
                      <StatusBadge status={releaseStatus(r)} />
                    </td>
                    <td>
                      {formatDate(r.startDate)} – {formatDate(r.endDate)}
                    </td>
                    <td>{r.type ?? '—'}</td>
                    <td>{r.branch ?? '—'}</td>
                    <td>{r.environment ?? '—'}</td>
                    <td>
                      {r.buildTarget
                        ? [
                            valueLabel(r.buildTarget.platform),
                            r.buildTarget.version,
                            r.buildTarget.buildNumber && `#${r.buildTarget.buildNumber}`,
                          ]
                            .filter(Boolean)
                            .join(' ')
                        : '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pagination pagination={releases.data.pagination} onPage={(p) => set({ page: p > 1 ? p : undefined })} />
        </>
      )}
    </Page>
  );
}

function CreateRelease({ projectId }: { projectId: string }) {
  const create = $api.useMutation('post', P.releases);
  const options = useReleaseOptions(projectId);
  const refresh = useRefresh();
  const navigate = useNavigate();
  return (
    <section className="card" aria-labelledby="new-release-heading">
      <h2 id="new-release-heading">New release</h2>
      <ReleaseForm
        initial={EMPTY_RELEASE}
        releases={options.data?.data ?? []}
        submitLabel="Create release"
        error={create.error}
        pending={create.isPending}
        onSubmit={(d) =>
          create.mutate(
            { params: { path: { projectId } }, body: releaseCreateBody(d) },
            {
              onSuccess: (res) => {
                void refresh(P.releases);
                navigate(href(PAGES.release, { projectId, releaseId: res.data._id }));
              },
            },
          )
        }
      />
    </section>
  );
}
