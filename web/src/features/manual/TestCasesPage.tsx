/**
 * `/projects/:projectId/manual-test-cases`: the suites tree beside the cases of the selected suite (the list
 * endpoint's `suiteId` filter: cases directly in that suite; "All cases" lists every case), with the list's
 * search and classification filters, page size and page in the URL. Writers create suites and rename or move
 * the selected one (PATCH), and start a new case in the selected suite.
 */
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { $api } from '../../api/client';
import { keepSameList } from '../../api/lists';
import { useProjectAccess } from '../../api/account';
import { href, PAGES } from '../../app/paths';
import { Page } from '../../ui/Page';
import { EmptyPageText, pageNumber, Pagination } from '../../ui/Pagination';
import { AN_ID, oneOf, PAGE_NUMBER, type Reader, useSearchState } from '../../ui/search-state';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { FormError } from '../../ui/FormError';
import { SelectField, TextArea, TextField } from './components/fields';
import { Tags } from './components/Tags';
import { ALL, flattenSuites, SuiteTree, type Suite } from './components/SuiteTree';
import { changedFields } from './changes';
import { P, useRefresh, useSuites } from './data';
import {
  AUTOMATION_STATUSES,
  BEHAVIORS,
  CASE_STATUSES,
  CASE_TYPES,
  LAYERS,
  PAGE_SIZES,
  pageSize,
  PRIORITIES,
  SEVERITIES,
  valueLabel,
} from './values';
import './manual.css';

const KEYS = [
  'suite',
  'search',
  'status',
  'priority',
  'severity',
  'type',
  'layer',
  'behavior',
  'automation',
  'tags',
  'page',
  'limit',
  'suitesPage',
] as const;

/** Only values the API takes: an unknown one from an edited link or an old bookmark is ignored, as its select shows. */
const READERS: Partial<Record<(typeof KEYS)[number], Reader>> = {
  // A `suite=` that is no id names no suite: all cases.
  suite: AN_ID,
  status: oneOf(CASE_STATUSES),
  priority: oneOf(PRIORITIES),
  severity: oneOf(SEVERITIES),
  type: oneOf(CASE_TYPES),
  layer: oneOf(LAYERS),
  behavior: oneOf(BEHAVIORS),
  automation: oneOf(AUTOMATION_STATUSES),
  page: PAGE_NUMBER,
  limit: oneOf(PAGE_SIZES),
  suitesPage: PAGE_NUMBER,
};

export function TestCasesPage() {
  const { projectId = '' } = useParams();
  const { canWrite } = useProjectAccess(projectId);
  const [q, set] = useSearchState(KEYS, READERS);
  const suitesPage = pageNumber(q.suitesPage);
  const suites = useSuites(projectId, suitesPage);
  const selected = q.suite ?? ALL;
  const all = suites.data ? flattenSuites(suites.data.data) : [];
  const selectedSuite = all.find((s) => s._id === selected);

  return (
    <Page
      title="Test cases"
      subtitle="Manual test cases by suite"
      actions={
        canWrite ? (
          <Link
            className="button button-primary"
            to={`${href(PAGES.newManualTestCase, { projectId })}${selected ? `?suite=${encodeURIComponent(selected)}` : ''}`}
          >
            New test case
          </Link>
        ) : null
      }
    >
      <div className="manual-split">
        <section className="card manual-aside" aria-labelledby="suites-heading">
          <h2 id="suites-heading">Suites</h2>
          {suites.isPending ? (
            <Loading label="Loading suites…" />
          ) : suites.error ? (
            <ErrorView error={suites.error} />
          ) : (
            <>
              <div aria-busy={suites.isPlaceholderData || undefined}>
                <SuiteTree
                  suites={suites.data.data}
                  selected={selected}
                  onSelect={(id) => set({ suite: id || undefined, page: undefined })}
                />
              </div>
              {suites.data.data.length === 0 ? (
                <Empty>
                  <EmptyPageText
                    pagination={suites.data.pagination}
                    none={`No suites yet${canWrite ? ': create one to hold test cases.' : '.'}`}
                    onFirst={() => set({ suitesPage: undefined })}
                  />
                </Empty>
              ) : null}
              <Pagination pagination={suites.data.pagination} onPage={(p) => set({ suitesPage: p > 1 ? p : undefined })} />
              {canWrite ? (
                <SuiteForms
                  projectId={projectId}
                  suites={all}
                  selected={selectedSuite}
                  onCreated={(id) => set({ suite: id, page: undefined })}
                />
              ) : null}
            </>
          )}
        </section>
        <CasesList projectId={projectId} q={q} set={set} suiteName={selected === ALL ? undefined : (selectedSuite?.name ?? 'this suite')} />
      </div>
    </Page>
  );
}

type Query = Record<(typeof KEYS)[number], string | undefined>;
type SetQuery = (changes: Partial<Record<(typeof KEYS)[number], string | number | undefined>>) => void;

function CasesList({ projectId, q, set, suiteName }: { projectId: string; q: Query; set: SetQuery; suiteName: string | undefined }) {
  const limit = pageSize(q.limit);
  const page = pageNumber(q.page);
  const cases = $api.useQuery(
    'get',
    P.cases,
    {
      params: {
        path: { projectId },
        query: {
          page,
          limit,
          // Only values the API takes: an unknown one from an edited link or an old bookmark (`status=bogus`,
          // `suite=`) was sent as it was, and the API's 400 left the list a dead end; ignored, as its select shows.
          suiteId: q.suite,
          search: q.search || undefined,
          status: asValue(q.status, CASE_STATUSES) || undefined,
          priority: asValue(q.priority, PRIORITIES) || undefined,
          severity: asValue(q.severity, SEVERITIES) || undefined,
          type: asValue(q.type, CASE_TYPES) || undefined,
          layer: asValue(q.layer, LAYERS) || undefined,
          behavior: asValue(q.behavior, BEHAVIORS) || undefined,
          automationStatus: asValue(q.automation, AUTOMATION_STATUSES) || undefined,
          tags: q.tags || undefined,
        },
      },
    },
    { placeholderData: keepSameList({ projectId }) },
  );
  // Text filters apply when the person stops typing (submit), not on every key.
  const [search, setSearch] = useState(q.search ?? '');
  const [tags, setTags] = useState(q.tags ?? '');
  const filter = (changes: Partial<Query>) => set({ ...changes, page: undefined });

  return (
    <section className="manual-main" aria-labelledby="cases-heading">
      <h2 id="cases-heading">{suiteName ? `Cases in ${suiteName}` : 'All cases'}</h2>
      <form
        className="filters"
        role="search"
        aria-label="Filter test cases"
        onSubmit={(e) => {
          e.preventDefault();
          filter({ search: search.trim() || undefined, tags: tags.trim() || undefined });
        }}
      >
        <TextField label="Search" type="search" value={search} onChange={setSearch} placeholder="Title or TC-12" />
        <TextField label="Tags" value={tags} onChange={setTags} placeholder="smoke, login" />
        <button type="submit" className="button">
          Apply
        </button>
        <SelectField
          label="Status"
          value={asValue(q.status, CASE_STATUSES)}
          values={CASE_STATUSES}
          empty="Any"
          onChange={(v) => filter({ status: v || undefined })}
        />
        <SelectField
          label="Priority"
          value={asValue(q.priority, PRIORITIES)}
          values={PRIORITIES}
          empty="Any"
          onChange={(v) => filter({ priority: v || undefined })}
        />
        <SelectField
          label="Severity"
          value={asValue(q.severity, SEVERITIES)}
          values={SEVERITIES}
          empty="Any"
          onChange={(v) => filter({ severity: v || undefined })}
        />
        <SelectField
          label="Type"
          value={asValue(q.type, CASE_TYPES)}
          values={CASE_TYPES}
          empty="Any"
          onChange={(v) => filter({ type: v || undefined })}
        />
        <SelectField
          label="Layer"
          value={asValue(q.layer, LAYERS)}
          values={LAYERS}
          empty="Any"
          onChange={(v) => filter({ layer: v || undefined })}
        />
        <SelectField
          label="Behavior"
          value={asValue(q.behavior, BEHAVIORS)}
          values={BEHAVIORS}
          empty="Any"
          onChange={(v) => filter({ behavior: v || undefined })}
        />
        <SelectField
          label="Automation"
          value={asValue(q.automation, AUTOMATION_STATUSES)}
          values={AUTOMATION_STATUSES}
          empty="Any"
          onChange={(v) => filter({ automation: v || undefined })}
        />
        <SelectField
          label="Per page"
          value={String(limit)}
          values={PAGE_SIZES.map(String)}
          onChange={(v) => set({ limit: v === '25' ? undefined : v, page: undefined })}
        />
      </form>
      {cases.isPending ? (
        <Loading label="Loading test cases…" />
      ) : cases.error ? (
        <ErrorView error={cases.error} />
      ) : cases.data.data.length === 0 ? (
        <Empty>
          <EmptyPageText
            pagination={cases.data.pagination}
            none={`No test cases ${hasFilters(q) ? 'match these filters' : suiteName ? 'in this suite yet' : 'yet'}.`}
            onFirst={() => set({ page: undefined })}
          />
        </Empty>
      ) : (
        <>
          <p className="muted" role="status">
            {cases.data.pagination.total} {cases.data.pagination.total === 1 ? 'case' : 'cases'}
          </p>
          <div className="table-scroll" aria-busy={cases.isPlaceholderData || undefined}>
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">ID</th>
                  <th scope="col">Title</th>
                  {suiteName ? null : <th scope="col">Suite</th>}
                  <th scope="col">Priority</th>
                  <th scope="col">Severity</th>
                  <th scope="col">Status</th>
                  <th scope="col">Type</th>
                  <th scope="col">Steps</th>
                  <th scope="col">Tags</th>
                </tr>
              </thead>
              <tbody>
                {cases.data.data.map((c) => (
                  <tr key={c._id}>
                    <td className="mono nowrap">{c.caseId}</td>
                    <td>
                      <Link to={href(PAGES.manualTestCase, { projectId, caseId: c.caseId })}>{c.title}</Link>
                    </td>
                    {suiteName ? null : <td>{c.metadata.suite?.name ?? '—'}</td>}
                    <td>
                      <span className={`priority priority-${c.classification.priority}`}>{valueLabel(c.classification.priority)}</span>
                    </td>
                    <td>{valueLabel(c.classification.severity)}</td>
                    <td>{valueLabel(c.classification.status)}</td>
                    <td>{valueLabel(c.classification.type)}</td>
                    <td>{c.steps.type === 'gherkin' ? `${c.steps.gherkin.length} Gherkin` : `${c.steps.classic.length} classic`}</td>
                    <td>
                      <Tags tags={c.tags} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pagination pagination={cases.data.pagination} onPage={(p) => set({ page: p > 1 ? p : undefined })} />
        </>
      )}
    </section>
  );
}

function asValue<T extends string>(value: string | undefined, values: readonly T[]): T | '' {
  return values.find((v) => v === value) ?? '';
}

function hasFilters(q: Query): boolean {
  return Boolean(q.search || q.status || q.priority || q.severity || q.type || q.layer || q.behavior || q.automation || q.tags);
}

/** "New suite" and "Edit suite" (the selected one): name, description, parent. */
function SuiteForms({
  projectId,
  suites,
  selected,
  onCreated,
}: {
  projectId: string;
  suites: Suite[];
  selected: Suite | undefined;
  onCreated: (id: string) => void;
}) {
  const [mode, setMode] = useState<'none' | 'create' | 'edit'>('none');
  return (
    <div className="suite-forms">
      <div className="manual-buttons">
        <button
          type="button"
          className="button button-small"
          aria-expanded={mode === 'create'}
          onClick={() => setMode(mode === 'create' ? 'none' : 'create')}
        >
          New suite
        </button>
        {selected ? (
          <button
            type="button"
            className="button button-small"
            aria-expanded={mode === 'edit'}
            onClick={() => setMode(mode === 'edit' ? 'none' : 'edit')}
          >
            Edit suite
          </button>
        ) : null}
      </div>
      {mode === 'create' ? (
        <SuiteForm
          key={`create-${selected?._id ?? ''}`}
          projectId={projectId}
          suites={suites}
          initial={{ name: '', description: '', parent: selected?._id ?? '' }}
          onDone={(id) => {
            setMode('none');
            onCreated(id);
          }}
        />
      ) : null}
      {mode === 'edit' && selected ? (
        <SuiteForm
          key={`edit-${selected._id}`}
          projectId={projectId}
          suites={suites}
          suite={selected}
          initial={{ name: selected.name, description: selected.description, parent: selected.hierarchy.parentSuite?._id ?? '' }}
          onDone={() => setMode('none')}
        />
      ) : null}
    </div>
  );
}

function SuiteForm({
  projectId,
  suites,
  suite,
  initial,
  onDone,
}: {
  projectId: string;
  suites: Suite[];
  /** The suite being edited; absent: a new one. */
  suite?: Suite;
  initial: { name: string; description: string; parent: string };
  onDone: (id: string) => void;
}) {
  const [form, setForm] = useState(initial);
  // What the form started from (the suite as this page knew it when the form opened).
  const [started] = useState(initial);
  const refresh = useRefresh();
  const create = $api.useMutation('post', P.suites);
  const update = $api.useMutation('patch', P.suite);
  const mutation = suite ? update : create;
  // A suite cannot move under itself or its own sub-suites.
  const own = suite ? new Set(flattenSuites([suite]).map((s) => s._id)) : new Set<string>();
  const parents = suites.filter((s) => !own.has(s._id));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const done = (id: string) => {
      void refresh(P.suites, P.cases);
      onDone(id);
    };
    if (suite) {
      // Only what this form changed: a rename never moves back, nor clears, a suite moved or described meanwhile in
      // another tab. Nothing changed, nothing is sent.
      const body = changedFields(
        { name: started.name, description: started.description, parentSuiteId: started.parent || null },
        { name: form.name, description: form.description, parentSuiteId: form.parent || null },
      );
      if (Object.keys(body).length === 0) return onDone(suite._id);
      update.mutate({ params: { path: { projectId, suiteId: suite._id } }, body }, { onSuccess: (res) => done(res.data._id) });
    } else {
      create.mutate(
        {
          params: { path: { projectId } },
          body: {
            name: form.name,
            ...(form.description ? { description: form.description } : {}),
            ...(form.parent ? { parentSuiteId: form.parent } : {}),
          },
        },
        { onSuccess: (res) => done(res.data._id) },
      );
    }
  };

  return (
    <form className="form manual-compact-form" onSubmit={submit} aria-labelledby={suite ? 'edit-suite-heading' : 'new-suite-heading'}>
      <h3 id={suite ? 'edit-suite-heading' : 'new-suite-heading'}>{suite ? `Edit suite ${suite.name}` : 'New suite'}</h3>
      <TextField label="Suite name" value={form.name} onChange={(name) => setForm({ ...form, name })} required />
      <TextArea label="Suite description" value={form.description} onChange={(description) => setForm({ ...form, description })} rows={2} />
      <div className="field">
        <label htmlFor={suite ? 'edit-suite-parent' : 'new-suite-parent'}>Parent suite</label>
        <select
          id={suite ? 'edit-suite-parent' : 'new-suite-parent'}
          value={form.parent}
          onChange={(e) => setForm({ ...form, parent: e.target.value })}
        >
          <option value="">Top level</option>
          {parents.map((s) => (
            <option key={s._id} value={s._id}>
              {'\u2003'.repeat(s.hierarchy.depth - 1)}
              {s.name}
            </option>
          ))}
        </select>
      </div>
      <FormError error={mutation.error} />
      <button type="submit" className="button button-primary" disabled={mutation.isPending}>
        {suite ? 'Save suite' : 'Create suite'}
      </button>
    </form>
  );
}
