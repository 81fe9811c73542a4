/**
 * `/projects/:projectId/sessions/:sessionId`: one exploratory session — charter, assignee, release,
 * environment, configuration, state, estimate, tags, linked issues, open or closed. Writers edit every field
 * (only changes are sent) and close the session (`status: closed`, spec §3).
 */
import { Link, useParams } from 'react-router';
import { $api, type Schemas } from '../../api/client';
import { useProjectAccess } from '../../api/account';
import { href, PAGES } from '../../app/paths';
import { Page } from '../../ui/Page';
import { formatDateTime } from '../../ui/format';
import { Loading } from '../../ui/states';
import { FormError } from '../../ui/FormError';
import { LinkedIssuesView } from './components/LinkedIssues';
import { EditCard } from './components/EditCard';
import { NotLoaded } from './components/NotFound';
import { OpenBadge } from './components/OpenBadge';
import { RichText } from './components/RichText';
import { SessionForm, sessionDraft, sessionUpdateBody } from './components/SessionForm';
import { P, useRefresh, useReleaseOptions, type Release } from './data';
import { Tags } from './components/Tags';
import './manual.css';

type Session = Schemas['ExploratorySession'];

export function SessionPage() {
  const { projectId = '', sessionId = '' } = useParams();
  const { canWrite } = useProjectAccess(projectId);
  const query = $api.useQuery('get', P.session, { params: { path: { projectId, sessionId } } });
  const releases = useReleaseOptions(projectId);
  const back = href(PAGES.sessions, { projectId });
  if (query.isPending) return <Loading label="Loading the session…" />;
  if (query.error)
    return <NotLoaded error={query.error} title="Exploratory session" what="Session" back={back} backLabel="Back to sessions" />;
  const s = query.data.data;
  const release = releases.data?.data.find((r) => r._id === s.releaseId);

  return (
    <Page
      title={s.name}
      subtitle={
        <>
          <OpenBadge status={s.status} /> {s.closedAt ? `closed ${formatDateTime(s.closedAt)}` : `started ${formatDateTime(s.createdAt)}`}
        </>
      }
      actions={<Link to={back}>Back to sessions</Link>}
    >
      {canWrite && s.status === 'open' ? <CloseSession projectId={projectId} session={s} /> : null}
      <div className="manual-columns">
        <section className="card" aria-labelledby="session-charter">
          <h2 id="session-charter">Charter</h2>
          <RichText html={s.mission} empty="No charter written yet." />
        </section>
        <section className="card" aria-labelledby="session-details">
          <h2 id="session-details">Details</h2>
          <dl className="manual-details">
            <div>
              <dt>Assignee</dt>
              <dd>{s.assignee ? `${s.assignee.name} <${s.assignee.email}>` : 'Unassigned'}</dd>
            </div>
            <div>
              <dt>Release</dt>
              <dd>
                {s.releaseId ? (
                  <Link to={href(PAGES.release, { projectId, releaseId: s.releaseId })}>{release?.name ?? 'Release'}</Link>
                ) : (
                  '—'
                )}
              </dd>
            </div>
            <div>
              <dt>Session type</dt>
              <dd>{s.sessionType ?? '—'}</dd>
            </div>
            <div>
              <dt>Environment</dt>
              <dd>{s.environment ?? '—'}</dd>
            </div>
            <div>
              <dt>Configuration</dt>
              <dd>{s.config ?? '—'}</dd>
            </div>
            <div>
              <dt>Workflow state</dt>
              <dd>{s.state ?? '—'}</dd>
            </div>
            <div>
              <dt>Estimate</dt>
              <dd>{s.estimate === null ? '—' : `${s.estimate} min`}</dd>
            </div>
            <div>
              <dt>Tags</dt>
              <dd>
                <Tags tags={s.tags} />
              </dd>
            </div>
            <div>
              <dt>Linked issues</dt>
              <dd>
                <LinkedIssuesView issues={s.linkedIssues} />
              </dd>
            </div>
            <div>
              <dt>Last change</dt>
              <dd>
                {formatDateTime(s.updatedAt)}
                {s.metadata.lastModifiedBy ? ` by ${s.metadata.lastModifiedBy.name}` : ''}
              </dd>
            </div>
          </dl>
        </section>
      </div>
      {canWrite ? <EditSession projectId={projectId} session={s} releases={releases.data?.data ?? []} /> : null}
    </Page>
  );
}

function CloseSession({ projectId, session }: { projectId: string; session: Session }) {
  const close = $api.useMutation('patch', P.session);
  const refresh = useRefresh();
  return (
    <div className="manual-toolbar">
      <button
        type="button"
        className="button"
        disabled={close.isPending}
        onClick={() =>
          close.mutate(
            { params: { path: { projectId, sessionId: session._id } }, body: { status: 'closed' } },
            { onSuccess: () => void refresh(P.session, P.sessions) },
          )
        }
      >
        Close session
      </button>
      <FormError error={close.error} title="Not closed" />
    </div>
  );
}

function EditSession({ projectId, session, releases }: { projectId: string; session: Session; releases: Release[] }) {
  const update = $api.useMutation('patch', P.session);
  const refresh = useRefresh();
  return (
    <EditCard
      what="session"
      record={session}
      save={(body: ReturnType<typeof sessionUpdateBody>, saved) =>
        update.mutate(
          { params: { path: { projectId, sessionId: session._id } }, body },
          {
            onSuccess: () => {
              saved();
              void refresh(P.session, P.sessions);
            },
          },
        )
      }
    >
      {(submit, opened) => (
        <SessionForm
          initial={sessionDraft(opened)}
          releases={releases}
          submitLabel="Save session"
          error={update.error}
          pending={update.isPending}
          onSubmit={(d) => submit(sessionUpdateBody(sessionDraft(opened), d))}
        />
      )}
    </EditCard>
  );
}
