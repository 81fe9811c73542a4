/**
 * `/projects/:projectId/releases/:releaseId`: one release — its lifecycle (planned, started, completed, with
 * the times the API stamped), dates, branch, environment, build target, testers, note, linked issues, parent
 * and sub-releases. Writers start, complete or reopen it and edit every field (only changes are sent).
 */
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { $api } from '../../api/client';
import { useProjectAccess } from '../../api/account';
import { href, PAGES } from '../../app/paths';
import { Page } from '../../ui/Page';
import { StatusBadge } from '../../ui/StatusBadge';
import { formatDate, formatDateTime } from '../../ui/format';
import { Loading } from '../../ui/states';
import { FormError } from '../../ui/FormError';
import { LinkedIssuesView } from './components/LinkedIssues';
import { EditCard } from './components/EditCard';
import { NotLoaded } from './components/NotFound';
import { ReleaseForm, releaseDraft, releaseUpdateBody } from './components/ReleaseForm';
import { releaseStatus } from './components/ReleaseSelect';
import { RichText } from './components/RichText';
import { P, useRefresh, useReleaseOptions, type Release } from './data';
import { valueLabel } from './values';
import './manual.css';

export function ReleasePage() {
  const { projectId = '', releaseId = '' } = useParams();
  const { canWrite } = useProjectAccess(projectId);
  const query = $api.useQuery('get', P.release, { params: { path: { projectId, releaseId } } });
  const options = useReleaseOptions(projectId);
  const back = href(PAGES.releases, { projectId });
  if (query.isPending) return <Loading label="Loading the release…" />;
  if (query.error) return <NotLoaded error={query.error} title="Release" what="Release" back={back} backLabel="Back to releases" />;
  const r = query.data.data;
  const all = options.data?.data ?? [];
  const parent = all.find((x) => x._id === r.parentReleaseId);
  const children = all.filter((x) => x.parentReleaseId === r._id);
  const link = (id: string) => href(PAGES.release, { projectId, releaseId: id });

  return (
    <Page title={r.name} subtitle={<StatusBadge status={releaseStatus(r)} />} actions={<Link to={back}>Back to releases</Link>}>
      {canWrite ? <Lifecycle projectId={projectId} release={r} /> : null}
      <section className="card" aria-labelledby="release-details">
        <h2 id="release-details">Details</h2>
        <dl className="manual-details">
          <Item label="Type">{r.type ?? '—'}</Item>
          <Item label="Parent release">
            {r.parentReleaseId ? <Link to={link(r.parentReleaseId)}>{parent?.name ?? 'Parent release'}</Link> : '—'}
          </Item>
          <Item label="Start date">{formatDate(r.startDate)}</Item>
          <Item label="End date">{formatDate(r.endDate)}</Item>
          <Item label="Started">{r.isStarted ? formatDateTime(r.startedAt) : 'Not started'}</Item>
          <Item label="Completed">{r.isCompleted ? formatDateTime(r.completedAt) : 'Not completed'}</Item>
          <Item label="Branch">{r.branch ?? '—'}</Item>
          <Item label="Environment">{r.environment ?? '—'}</Item>
          <Item label="Build target">
            {r.buildTarget ? (
              <>
                {valueLabel(r.buildTarget.platform)}
                {r.buildTarget.version ? ` ${r.buildTarget.version}` : ''}
                {r.buildTarget.buildNumber ? ` (build ${r.buildTarget.buildNumber})` : ''}
                {r.buildTarget.source ? ` from ${r.buildTarget.source}` : ''}
                {r.buildTarget.deployUrl && /^https?:\/\//i.test(r.buildTarget.deployUrl) ? (
                  <>
                    {' · '}
                    <a href={r.buildTarget.deployUrl} rel="noreferrer noopener" target="_blank">
                      deployment
                    </a>
                  </>
                ) : null}
              </>
            ) : (
              '—'
            )}
          </Item>
          <Item label="Testers">{r.testers.length > 0 ? r.testers.map((t) => `${t.name} <${t.email}>`).join(', ') : '—'}</Item>
          <Item label="Linked issues">
            <LinkedIssuesView issues={r.linkedIssues} />
          </Item>
          <Item label="Last change">
            {formatDateTime(r.updatedAt)}
            {r.metadata.lastModifiedBy ? ` by ${r.metadata.lastModifiedBy.name}` : ''}
          </Item>
        </dl>
        <h3>Description</h3>
        {r.description ? <p className="manual-pre">{r.description}</p> : <p className="muted">—</p>}
        <h3>Release note</h3>
        <RichText html={r.note} />
        <h3>Sub-releases</h3>
        {children.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <ul className="link-list">
            {children.map((c) => (
              <li key={c._id}>
                <Link to={link(c._id)}>{c.name}</Link> <StatusBadge status={releaseStatus(c)} />
              </li>
            ))}
          </ul>
        )}
      </section>
      {canWrite ? <EditRelease projectId={projectId} release={r} releases={all} /> : null}
    </Page>
  );
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** Start, complete, reopen: the API stamps the time when a flag turns on and clears it when it turns off. */
function Lifecycle({ projectId, release: r }: { projectId: string; release: Release }) {
  const update = $api.useMutation('patch', P.release);
  const refresh = useRefresh();
  const send = (body: { isStarted?: boolean; isCompleted?: boolean }) =>
    update.mutate({ params: { path: { projectId, releaseId: r._id } }, body }, { onSuccess: () => void refresh(P.release, P.releases) });
  return (
    <div className="manual-toolbar">
      {!r.isStarted ? (
        <button type="button" className="button" disabled={update.isPending} onClick={() => send({ isStarted: true })}>
          Start release
        </button>
      ) : null}
      {!r.isCompleted ? (
        <button type="button" className="button" disabled={update.isPending} onClick={() => send({ isCompleted: true })}>
          Mark completed
        </button>
      ) : (
        <button type="button" className="button" disabled={update.isPending} onClick={() => send({ isCompleted: false })}>
          Reopen
        </button>
      )}
      <FormError error={update.error} />
    </div>
  );
}

function EditRelease({ projectId, release: r, releases }: { projectId: string; release: Release; releases: Release[] }) {
  const update = $api.useMutation('patch', P.release);
  const refresh = useRefresh();
  return (
    <EditCard
      what="release"
      record={r}
      save={(body: ReturnType<typeof releaseUpdateBody>, saved) =>
        update.mutate(
          { params: { path: { projectId, releaseId: r._id } }, body },
          {
            onSuccess: () => {
              saved();
              void refresh(P.release, P.releases);
            },
          },
        )
      }
    >
      {(submit, opened) => (
        <ReleaseForm
          initial={releaseDraft(opened)}
          releases={releases}
          releaseId={r._id}
          submitLabel="Save release"
          error={update.error}
          pending={update.isPending}
          onSubmit={(d) => submit(releaseUpdateBody(releaseDraft(opened), d))}
        />
      )}
    </EditCard>
  );
}
