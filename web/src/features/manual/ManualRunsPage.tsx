/**
 * `/projects/:projectId/manual-runs`: manual runs, newest first, with their progress (the run's rollup counts
 * per verdict), filtered open/closed, paged in the URL. Writers create a run: name, release, environment,
 * tags, note and the cases it holds — every case of the project (`selectionMode: all`), or chosen suites (with
 * their sub-suites), chosen cases and/or the cases in no suite (`selected`).
 */
import { useState, type FormEvent } from 'react';
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
import { TextArea, TextField } from './components/fields';
import { FormError } from '../../ui/FormError';
import { OpenBadge } from './components/OpenBadge';
import { ReleaseSelect } from './components/ReleaseSelect';
import { textToHtml } from './components/RichText';
import { RunProgress } from './components/RunProgress';
import type { Suite } from './components/SuiteTree';
import { P, useRefresh, useReleaseOptions, useSuites } from './data';
import { PAGE_SIZES, pageSize, splitList } from './values';
import './manual.css';

export function ManualRunsPage() {
  const { projectId = '' } = useParams();
  const { canWrite } = useProjectAccess(projectId);
  const [q, set] = useSearchState(['status', 'page', 'limit'] as const, {
    status: oneOf(['open', 'closed']),
    page: PAGE_NUMBER,
    limit: oneOf(PAGE_SIZES),
  });
  const [creating, setCreating] = useState(false);
  const status = q.status === 'open' || q.status === 'closed' ? q.status : undefined;
  const runs = $api.useQuery(
    'get',
    P.runs,
    { params: { path: { projectId }, query: { page: pageNumber(q.page), limit: pageSize(q.limit), status } } },
    { placeholderData: keepSameList({ projectId }) },
  );
  const releases = useReleaseOptions(projectId);
  const releaseName = new Map((releases.data?.data ?? []).map((r) => [r._id, r.name]));

  return (
    <Page
      title="Manual runs"
      subtitle="Test cases executed by people, with their verdicts"
      actions={
        canWrite ? (
          <button type="button" className="button button-primary" aria-expanded={creating} onClick={() => setCreating(!creating)}>
            New manual run
          </button>
        ) : null
      }
    >
      {canWrite && creating ? <CreateRun projectId={projectId} /> : null}
      <div className="filters">
        <div className="field">
          <label htmlFor="run-status">Status</label>
          <select id="run-status" value={status ?? ''} onChange={(e) => set({ status: e.target.value || undefined, page: undefined })}>
            <option value="">All runs</option>
            <option value="open">Open</option>
            <option value="closed">Closed</option>
          </select>
        </div>
      </div>
      {runs.isPending ? (
        <Loading label="Loading manual runs…" />
      ) : runs.error ? (
        <ErrorView error={runs.error} />
      ) : runs.data.data.length === 0 ? (
        <Empty>
          <EmptyPageText
            pagination={runs.data.pagination}
            none={status ? `No ${status} manual runs.` : 'No manual runs yet.'}
            onFirst={() => set({ page: undefined })}
          />
        </Empty>
      ) : (
        <>
          <div className="table-scroll" aria-busy={runs.isPlaceholderData || undefined}>
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Progress</th>
                  <th scope="col" className="num">
                    Passed
                  </th>
                  <th scope="col" className="num">
                    Failed
                  </th>
                  <th scope="col">Release</th>
                  <th scope="col">Environment</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {runs.data.data.map((r) => (
                  <tr key={r._id}>
                    <td>
                      <Link to={href(PAGES.manualRun, { projectId, runId: r._id })}>{r.name}</Link>
                    </td>
                    <td>
                      <OpenBadge status={r.status} />
                    </td>
                    <td className="manual-progress-cell">
                      <RunProgress stats={r.stats} />
                    </td>
                    <td className="num">{r.stats.passed}</td>
                    <td className="num">{r.stats.failed}</td>
                    <td>
                      {r.releaseId ? (
                        <Link to={href(PAGES.release, { projectId, releaseId: r.releaseId })}>
                          {releaseName.get(r.releaseId) ?? 'Release'}
                        </Link>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td>{r.environment ?? '—'}</td>
                    <td>{formatDateTime(r.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pagination pagination={runs.data.pagination} onPage={(p) => set({ page: p > 1 ? p : undefined })} />
        </>
      )}
    </Page>
  );
}

interface ChosenCase {
  id: string;
  caseId: string;
  title: string;
}

function CreateRun({ projectId }: { projectId: string }) {
  const [name, setName] = useState('');
  const [releaseId, setReleaseId] = useState('');
  const [environment, setEnvironment] = useState('');
  const [tags, setTags] = useState('');
  const [note, setNote] = useState('');
  const [mode, setMode] = useState<'all' | 'selected'>('all');
  const [suiteIds, setSuiteIds] = useState<string[]>([]);
  const [cases, setCases] = useState<ChosenCase[]>([]);
  const [includeUnsorted, setIncludeUnsorted] = useState(false);
  const releases = useReleaseOptions(projectId);
  const create = $api.useMutation('post', P.runs);
  const refresh = useRefresh();
  const navigate = useNavigate();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      {
        params: { path: { projectId } },
        body: {
          name,
          ...(releaseId ? { releaseId } : {}),
          ...(environment.trim() ? { environment: environment.trim() } : {}),
          ...(note.trim() ? { note: textToHtml(note) } : {}),
          tags: splitList(tags),
          selectionMode: mode,
          ...(mode === 'selected' ? { suiteIds, testCaseIds: cases.map((c) => c.id), includeUnsorted } : {}),
        },
      },
      {
        onSuccess: (res) => {
          void refresh(P.runs);
          navigate(href(PAGES.manualRun, { projectId, runId: res.data._id }));
        },
      },
    );
  };

  return (
    <section className="card" aria-labelledby="new-run-heading">
      <h2 id="new-run-heading">New manual run</h2>
      <form className="form-wide" onSubmit={submit} aria-label="Create manual run">
        <div className="form-grid">
          <TextField label="Name" value={name} onChange={setName} required />
          <ReleaseSelect releases={releases.data?.data ?? []} value={releaseId} onChange={setReleaseId} />
          <TextField label="Environment" value={environment} onChange={setEnvironment} />
          <TextField label="Tags" value={tags} onChange={setTags} hint="Comma-separated" />
        </div>
        <TextArea label="Note" value={note} onChange={setNote} rows={2} />
        <fieldset className="manual-fieldset manual-radios">
          <legend>Cases in this run</legend>
          <label className="manual-check">
            <input type="radio" name="selection-mode" checked={mode === 'all'} onChange={() => setMode('all')} />
            Every case of the project
          </label>
          <label className="manual-check">
            <input type="radio" name="selection-mode" checked={mode === 'selected'} onChange={() => setMode('selected')} />
            Chosen suites and cases
          </label>
        </fieldset>
        {mode === 'selected' ? (
          <div className="manual-columns">
            <SuitePicker projectId={projectId} chosen={suiteIds} onChange={setSuiteIds} />
            <div>
              <CasePicker projectId={projectId} chosen={cases} onChange={setCases} />
              <label className="manual-check">
                <input type="checkbox" checked={includeUnsorted} onChange={(e) => setIncludeUnsorted(e.target.checked)} />
                Also the cases in no suite
              </label>
            </div>
          </div>
        ) : null}
        <FormError error={create.error} />
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          Create run
        </button>
      </form>
    </section>
  );
}

/** Suites as nested checkboxes; a chosen suite brings its sub-suites' cases too (the API's rule). */
function SuitePicker({ projectId, chosen, onChange }: { projectId: string; chosen: string[]; onChange: (ids: string[]) => void }) {
  const suites = useSuites(projectId);
  const list = (items: Suite[]) => (
    <ul className="manual-check-tree">
      {items.map((s) => (
        <li key={s._id}>
          <label className="manual-check">
            <input
              type="checkbox"
              checked={chosen.includes(s._id)}
              onChange={(e) => onChange(e.target.checked ? [...chosen, s._id] : chosen.filter((id) => id !== s._id))}
            />
            {s.name}
          </label>
          {s.children.length > 0 ? list(s.children) : null}
        </li>
      ))}
    </ul>
  );
  return (
    <fieldset className="manual-fieldset">
      <legend>Suites (with their sub-suites)</legend>
      {suites.isPending ? (
        <Loading label="Loading suites…" />
      ) : suites.error ? (
        <ErrorView error={suites.error} />
      ) : suites.data.data.length === 0 ? (
        <p className="muted">No suites.</p>
      ) : (
        list(suites.data.data)
      )}
    </fieldset>
  );
}

/** Finds cases by title or number (the list endpoint's search) and collects the chosen ones. */
function CasePicker({ projectId, chosen, onChange }: { projectId: string; chosen: ChosenCase[]; onChange: (cases: ChosenCase[]) => void }) {
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const found = $api.useQuery(
    'get',
    P.cases,
    { params: { path: { projectId }, query: { search: search || undefined, page, limit: 10 } } },
    { placeholderData: keepSameList({ projectId }) },
  );
  const has = (id: string) => chosen.some((c) => c.id === id);
  return (
    <fieldset className="manual-fieldset">
      <legend>Cases</legend>
      <div className="manual-inline-form">
        <TextField
          label="Find cases"
          type="search"
          value={text}
          onChange={setText}
          placeholder="Title or TC-12"
          onKeyDown={(e) => {
            // Enter searches here instead of submitting the whole run form.
            if (e.key === 'Enter') {
              e.preventDefault();
              setSearch(text.trim());
              setPage(1);
            }
          }}
        />
        <button
          type="button"
          className="button"
          onClick={() => {
            setSearch(text.trim());
            setPage(1);
          }}
        >
          Find
        </button>
      </div>
      {found.isPending ? (
        <Loading label="Loading cases…" />
      ) : found.error ? (
        <ErrorView error={found.error} />
      ) : found.data.data.length === 0 ? (
        <p className="muted">
          <EmptyPageText pagination={found.data.pagination} none="No case matches." onFirst={() => setPage(1)} />
        </p>
      ) : (
        <>
          <ul className="manual-check-list" aria-label="Cases found" aria-busy={found.isPlaceholderData || undefined}>
            {found.data.data.map((c) => (
              <li key={c._id}>
                <label className="manual-check">
                  <input
                    type="checkbox"
                    checked={has(c._id)}
                    onChange={(e) =>
                      onChange(
                        e.target.checked
                          ? [...chosen, { id: c._id, caseId: c.caseId, title: c.title }]
                          : chosen.filter((x) => x.id !== c._id),
                      )
                    }
                  />
                  <span className="mono">{c.caseId}</span> {c.title}
                </label>
              </li>
            ))}
          </ul>
          <Pagination pagination={found.data.pagination} onPage={setPage} />
        </>
      )}
      <p className="field-hint" aria-live="polite">
        {chosen.length === 0 ? 'No case chosen.' : `Chosen: ${chosen.map((c) => c.caseId).join(', ')}`}
      </p>
    </fieldset>
  );
}
