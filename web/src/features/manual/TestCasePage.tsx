/**
 * `/projects/:projectId/manual-test-cases/new` and `…/:caseId` (a case `_id` or its number, `TC-12`): the case
 * editor. Title, suite (chosen at creation: the update body has no suite), texts, the classification values,
 * flags, tags, custom fields and steps in either style the API knows (classic or Gherkin, with sub-steps).
 * Writers edit; viewers read the same case without a single control. An existing case also shows its
 * comments, linked issue keys and linked automated tests, and writers add comments and issue keys.
 */
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { $api, type Schemas } from '../../api/client';
import { PROJECT_NOT_FOUND, useProjectAccess } from '../../api/account';
import { href, PAGES } from '../../app/paths';
import { Page } from '../../ui/Page';
import { formatDateTime } from '../../ui/format';
import { ErrorView, Loading } from '../../ui/states';
import { FormError } from '../../ui/FormError';
import { SelectField, TextArea, TextField } from './components/fields';
import { NotLoaded } from './components/NotFound';
import { RichText, textToHtml } from './components/RichText';
import { StepsEditor } from './components/StepsEditor';
import { StepsView } from './components/StepsView';
import { flattenSuites } from './components/SuiteTree';
import { changedFields } from './changes';
import { P, useRefresh, useSuites } from './data';
import { emptyStep, fromClassic, fromGherkin, toBody, type StepDraft, type StepKind } from './steps';
import { Tags } from './components/Tags';
import {
  AUTOMATION_STATUSES,
  BEHAVIORS,
  CASE_STATUSES,
  CASE_TYPES,
  FLAGS,
  LAYERS,
  PRIORITIES,
  SEVERITIES,
  valueLabel,
  type Flag,
} from './values';
import './manual.css';

type Case = Schemas['ManualTestCaseDetail'];
type Classification = Case['classification'];

interface Draft {
  title: string;
  suiteId: string;
  description: string;
  preconditions: string;
  postconditions: string;
  status: Classification['status'];
  priority: Classification['priority'];
  severity: Classification['severity'];
  type: Classification['type'];
  layer: Classification['layer'];
  behavior: Classification['behavior'];
  automationStatus: Case['automation']['status'];
  flags: Flag[];
  tags: string;
  customFields: { key: string; name: string; value: string }[];
  stepsType: StepKind;
  classic: StepDraft[];
  gherkin: StepDraft[];
}

let fieldCounter = 0;
const fieldKey = () => `f${++fieldCounter}`;

/** A new case starts with the values the API gives a case created without them. */
function newDraft(suiteId: string): Draft {
  return {
    title: '',
    suiteId,
    description: '',
    preconditions: '',
    postconditions: '',
    status: 'active',
    priority: 'not_set',
    severity: 'not_set',
    type: 'other',
    layer: 'not_set',
    behavior: 'not_set',
    automationStatus: 'manual',
    flags: [],
    tags: '',
    customFields: [],
    stepsType: 'classic',
    classic: [emptyStep('classic', 0)],
    gherkin: [],
  };
}

function draftOf(c: Case): Draft {
  return {
    title: c.title,
    suiteId: c.metadata.suite?._id ?? '',
    description: c.description,
    preconditions: c.preconditions,
    postconditions: c.postconditions,
    ...c.classification,
    automationStatus: c.automation.status,
    flags: c.flags,
    tags: c.tags.join(', '),
    customFields: Object.entries(c.customFields).map(([name, value]) => ({ key: fieldKey(), name, value })),
    stepsType: c.steps.type,
    classic: fromClassic(c.steps.classic),
    gherkin: fromGherkin(c.steps.gherkin),
  };
}

/** The fields both the create and the update body take (the update body has no suite). */
function bodyOf(d: Draft) {
  return {
    title: d.title,
    description: d.description,
    preconditions: d.preconditions,
    postconditions: d.postconditions,
    status: d.status,
    priority: d.priority,
    severity: d.severity,
    type: d.type,
    layer: d.layer,
    behavior: d.behavior,
    automationStatus: d.automationStatus,
    flags: d.flags,
    tags: d.tags,
    // Empty rows are left out; a named field with an empty value is kept (the API stores "").
    customFields: Object.fromEntries(d.customFields.filter((f) => f.name || f.value).map((f) => [f.name, f.value])),
    testStepsDeclarationType: d.stepsType === 'classic' ? ('Classic' as const) : ('Gherkin' as const),
    steps: toBody(d.stepsType === 'classic' ? d.classic : d.gherkin, d.stepsType),
  };
}

export function NewTestCasePage() {
  const { projectId = '' } = useParams();
  const [search] = useSearchParams();
  const { canWrite, role, missing } = useProjectAccess(projectId);
  const navigate = useNavigate();
  const refresh = useRefresh();
  const create = $api.useMutation('post', P.cases);
  const back = href(PAGES.manualTestCases, { projectId });
  if (missing)
    return (
      <Page title="New test case">
        <ErrorView error={PROJECT_NOT_FOUND} />
      </Page>
    );
  if (role && !canWrite) {
    return (
      <Page title="New test case">
        <p>Your role in this project ({role}) can read test cases but not create them.</p>
        <Link to={back}>Back to test cases</Link>
      </Page>
    );
  }
  return (
    <Page title="New test case" actions={<Link to={back}>Back to test cases</Link>}>
      <CaseForm
        projectId={projectId}
        initial={newDraft(search.get('suite') ?? '')}
        isNew
        mutation={create}
        onSubmit={(d) =>
          create.mutate(
            { params: { path: { projectId } }, body: { ...bodyOf(d), suiteId: d.suiteId } },
            {
              onSuccess: (res) => {
                void refresh(P.cases);
                navigate(href(PAGES.manualTestCase, { projectId, caseId: res.data.caseId }), { replace: true });
              },
            },
          )
        }
      />
    </Page>
  );
}

export function TestCasePage() {
  const { projectId = '', caseId = '' } = useParams();
  const { canWrite } = useProjectAccess(projectId);
  const query = $api.useQuery('get', P.case, { params: { path: { projectId, caseId } } });
  const back = href(PAGES.manualTestCases, { projectId });
  if (query.isPending) return <Loading label="Loading the test case…" />;
  if (query.error) return <NotLoaded error={query.error} title="Test case" what="Test case" back={back} backLabel="Back to test cases" />;
  const c = query.data.data;
  const suiteLink = c.metadata.suite ? `${back}?suite=${encodeURIComponent(c.metadata.suite._id)}` : back;
  return (
    <Page
      title={`${c.caseId} · ${c.title}`}
      subtitle={
        <>
          {c.metadata.suite ? <>Suite {c.metadata.suite.name} · </> : null}
          updated {formatDateTime(c.updatedAt)}
          {c.metadata.lastModifiedBy ? ` by ${c.metadata.lastModifiedBy.name}` : ''}
        </>
      }
      actions={<Link to={suiteLink}>Back to test cases</Link>}
    >
      {canWrite ? <EditCase projectId={projectId} testCase={c} /> : <CaseView testCase={c} />}
      <CaseActivity projectId={projectId} testCase={c} canWrite={canWrite} />
    </Page>
  );
}

function EditCase({ projectId, testCase }: { projectId: string; testCase: Case }) {
  const update = $api.useMutation('patch', P.case);
  const refresh = useRefresh();
  const [saved, setSaved] = useState<'saved' | 'nothing' | false>(false);
  // What the form started from (then what it last saved): a save sends only the fields changed since, so a field
  // changed meanwhile in another tab and not touched here is kept (spec §4.4: "send only changes").
  const [base, setBase] = useState(() => bodyOf(draftOf(testCase)));
  return (
    <CaseForm
      // The form keeps what the person typed across saves and comments; another case starts it afresh.
      key={testCase._id}
      projectId={projectId}
      initial={draftOf(testCase)}
      suiteName={testCase.metadata.suite?.name}
      mutation={update}
      saved={saved}
      onEdit={() => setSaved(false)}
      onSubmit={(d) => {
        const next = bodyOf(d);
        const body = changedFields(base, next);
        if (Object.keys(body).length === 0) {
          update.reset();
          setSaved('nothing');
          return;
        }
        update.mutate(
          { params: { path: { projectId, caseId: testCase._id } }, body },
          {
            onSuccess: () => {
              setBase(next);
              setSaved('saved');
              void refresh(P.case, P.cases);
            },
          },
        );
      }}
    />
  );
}

function CaseForm({
  projectId,
  initial,
  isNew = false,
  suiteName,
  mutation,
  saved = false,
  onEdit,
  onSubmit,
}: {
  projectId: string;
  initial: Draft;
  isNew?: boolean;
  /** An existing case's suite (fixed: the API moves no case between suites). */
  suiteName?: string;
  mutation: { error: unknown; isPending: boolean };
  /** The last save's outcome: stored, or nothing to send. */
  saved?: 'saved' | 'nothing' | false;
  onEdit?: () => void;
  onSubmit: (draft: Draft) => void;
}) {
  const [d, setDraft] = useState(initial);
  // A custom field named twice: the body is an object, so one of the two values would be dropped without a word.
  const [twice, setTwice] = useState<string>();
  const suites = useSuites(projectId);
  const set = (patch: Partial<Draft>) => {
    setDraft((prev) => ({ ...prev, ...patch }));
    onEdit?.();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const names = d.customFields.filter((f) => f.name || f.value).map((f) => f.name);
    const repeated = names.find((name, i) => names.indexOf(name) !== i);
    setTwice(repeated);
    if (repeated === undefined) onSubmit(d);
  };
  const steps = d.stepsType === 'classic' ? d.classic : d.gherkin;

  return (
    <form className="case-form" onSubmit={submit} aria-label={isNew ? 'New test case' : 'Edit test case'}>
      <section className="card" aria-labelledby="case-basics">
        <h2 id="case-basics">Case</h2>
        <div className="form-grid form-grid-wide">
          <TextField label="Title" value={d.title} onChange={(title) => set({ title })} required />
          {isNew ? (
            <div className="field">
              <label htmlFor="case-suite">Suite</label>
              <select id="case-suite" value={d.suiteId} onChange={(e) => set({ suiteId: e.target.value })} required>
                <option value="">Choose a suite…</option>
                {(suites.data ? flattenSuites(suites.data.data) : []).map((s) => (
                  <option key={s._id} value={s._id}>
                    {'\u2003'.repeat(s.hierarchy.depth - 1)}
                    {s.name}
                  </option>
                ))}
              </select>
              {/* Without the suites (their service down) no suite can be chosen: say why, not an empty select alone. */}
              {suites.isLoadingError ? <ErrorView error={suites.error} title="The suites could not be loaded" /> : null}
              {suites.data && suites.data.data.length === 0 ? (
                <span className="field-hint">
                  This project has no suites yet: <Link to={href(PAGES.manualTestCases, { projectId })}>create one first</Link>.
                </span>
              ) : null}
            </div>
          ) : (
            <div className="field">
              <span className="field-label">Suite</span>
              <span>{suiteName ?? '—'}</span>
            </div>
          )}
        </div>
        <TextArea label="Description" value={d.description} onChange={(description) => set({ description })} rows={3} />
        <div className="form-grid">
          <TextArea label="Preconditions" value={d.preconditions} onChange={(preconditions) => set({ preconditions })} rows={3} />
          <TextArea label="Postconditions" value={d.postconditions} onChange={(postconditions) => set({ postconditions })} rows={3} />
        </div>
      </section>

      <section className="card" aria-labelledby="case-classification">
        <h2 id="case-classification">Classification</h2>
        <div className="form-grid">
          <SelectField label="Status" value={d.status} values={CASE_STATUSES} onChange={(v) => v && set({ status: v })} />
          <SelectField label="Priority" value={d.priority} values={PRIORITIES} onChange={(v) => v && set({ priority: v })} />
          <SelectField label="Severity" value={d.severity} values={SEVERITIES} onChange={(v) => v && set({ severity: v })} />
          <SelectField label="Type" value={d.type} values={CASE_TYPES} onChange={(v) => v && set({ type: v })} />
          <SelectField label="Layer" value={d.layer} values={LAYERS} onChange={(v) => v && set({ layer: v })} />
          <SelectField label="Behavior" value={d.behavior} values={BEHAVIORS} onChange={(v) => v && set({ behavior: v })} />
          <SelectField
            label="Automation status"
            value={d.automationStatus}
            values={AUTOMATION_STATUSES}
            onChange={(v) => v && set({ automationStatus: v })}
          />
          <TextField label="Tags" value={d.tags} onChange={(tags) => set({ tags })} hint="Comma-separated, e.g. smoke, login" />
        </div>
        <fieldset className="manual-fieldset">
          <legend>Flags</legend>
          {FLAGS.map((flag) => (
            <label key={flag} className="manual-check">
              <input
                type="checkbox"
                checked={d.flags.includes(flag)}
                onChange={(e) => set({ flags: e.target.checked ? [...d.flags, flag] : d.flags.filter((f) => f !== flag) })}
              />
              {flag}
            </label>
          ))}
        </fieldset>
        <CustomFieldsEditor fields={d.customFields} onChange={(customFields) => set({ customFields })} />
      </section>

      <section className="card" aria-labelledby="case-steps">
        <h2 id="case-steps">Steps</h2>
        <fieldset className="manual-fieldset manual-radios">
          <legend>Step style</legend>
          {(['classic', 'gherkin'] as const).map((kind) => (
            <label key={kind} className="manual-check">
              <input
                type="radio"
                name="steps-type"
                value={kind}
                checked={d.stepsType === kind}
                onChange={() =>
                  set({
                    stepsType: kind,
                    // A style never used yet starts with one empty step to fill in.
                    ...(kind === 'gherkin' && d.gherkin.length === 0 ? { gherkin: [emptyStep('gherkin', 0)] } : {}),
                    ...(kind === 'classic' && d.classic.length === 0 ? { classic: [emptyStep('classic', 0)] } : {}),
                  })
                }
              />
              {kind === 'classic' ? 'Classic (action, data, expected result)' : 'Gherkin (Given, When, Then)'}
            </label>
          ))}
          <p className="field-hint">The API keeps each style's steps; saving saves the steps of the style chosen here.</p>
        </fieldset>
        <StepsEditor
          key={d.stepsType}
          kind={d.stepsType}
          steps={steps}
          onChange={(next) => set(d.stepsType === 'classic' ? { classic: next } : { gherkin: next })}
        />
      </section>

      <div className="manual-submit">
        {twice !== undefined ? (
          <div className="callout callout-error" role="alert">
            <strong>Not saved.</strong> Custom fields: the name &quot;{twice}&quot; is given twice
          </div>
        ) : (
          <FormError error={mutation.error} />
        )}
        {saved === 'saved' ? (
          <p className="callout callout-success" role="status">
            Saved.
          </p>
        ) : saved === 'nothing' ? (
          <p className="muted" role="status">
            Nothing changed.
          </p>
        ) : null}
        <button type="submit" className="button button-primary" disabled={mutation.isPending}>
          {isNew ? 'Create test case' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}

function CustomFieldsEditor({ fields, onChange }: { fields: Draft['customFields']; onChange: (fields: Draft['customFields']) => void }) {
  return (
    <fieldset className="manual-fieldset">
      <legend>Custom fields</legend>
      {fields.length === 0 ? <p className="muted">No custom fields.</p> : null}
      {fields.map((f, i) => (
        <div key={f.key} className="manual-row">
          <label className="manual-inline-field">
            <span>
              Field name<span className="visually-hidden"> {i + 1}</span>
            </span>
            <input value={f.name} onChange={(e) => onChange(fields.map((x) => (x.key === f.key ? { ...x, name: e.target.value } : x)))} />
          </label>
          <label className="manual-inline-field">
            <span>
              Value<span className="visually-hidden"> of field {i + 1}</span>
            </span>
            <input value={f.value} onChange={(e) => onChange(fields.map((x) => (x.key === f.key ? { ...x, value: e.target.value } : x)))} />
          </label>
          <button
            type="button"
            className="button button-small button-danger"
            onClick={() => onChange(fields.filter((x) => x.key !== f.key))}
          >
            Remove<span className="visually-hidden"> field {i + 1}</span>
          </button>
        </div>
      ))}
      <button type="button" className="button button-small" onClick={() => onChange([...fields, { key: fieldKey(), name: '', value: '' }])}>
        Add custom field
      </button>
    </fieldset>
  );
}

/** The case as a viewer reads it: every field, no control. */
function CaseView({ testCase: c }: { testCase: Case }) {
  const texts: [string, string][] = [
    ['Description', c.description],
    ['Preconditions', c.preconditions],
    ['Postconditions', c.postconditions],
  ];
  return (
    <>
      <section className="card" aria-labelledby="case-details">
        <h2 id="case-details">Details</h2>
        <dl className="manual-details">
          {(['status', 'priority', 'severity', 'type', 'layer', 'behavior'] as const).map((k) => (
            <div key={k}>
              <dt>{valueLabel(k)}</dt>
              <dd>{valueLabel(c.classification[k])}</dd>
            </div>
          ))}
          <div>
            <dt>Automation status</dt>
            <dd>{valueLabel(c.automation.status)}</dd>
          </div>
          <div>
            <dt>Flags</dt>
            <dd>{c.flags.length > 0 ? c.flags.join(', ') : '—'}</dd>
          </div>
          <div>
            <dt>Tags</dt>
            <dd>
              <Tags tags={c.tags} />
            </dd>
          </div>
          {Object.entries(c.customFields).map(([k, v]) => (
            <div key={`cf-${k}`}>
              <dt>{k}</dt>
              <dd>{v || '—'}</dd>
            </div>
          ))}
        </dl>
        {texts.map(([label, text]) => (
          <div key={label} className="manual-text-block">
            <h3>{label}</h3>
            {text ? <p className="manual-pre">{text}</p> : <p className="muted">—</p>}
          </div>
        ))}
      </section>
      <section className="card" aria-labelledby="case-steps-view">
        <h2 id="case-steps-view">Steps ({c.steps.type === 'gherkin' ? 'Gherkin' : 'classic'})</h2>
        <StepsView steps={c.steps} />
      </section>
    </>
  );
}

/** Comments, issue keys and linked automated tests; writers add comments and issue keys (PATCH appends). */
function CaseActivity({ projectId, testCase: c, canWrite }: { projectId: string; testCase: Case; canWrite: boolean }) {
  const [comment, setComment] = useState('');
  const [issue, setIssue] = useState('');
  const refresh = useRefresh();
  const addComment = $api.useMutation('patch', P.case);
  const addIssue = $api.useMutation('patch', P.case);
  const path = { projectId, caseId: c._id };

  return (
    <div className="manual-columns">
      <section className="card" aria-labelledby="case-comments">
        <h2 id="case-comments">Comments</h2>
        {c.comments.length === 0 ? (
          <p className="muted">No comments yet.</p>
        ) : (
          <ol className="manual-comments">
            {c.comments.map((m) => (
              <li key={m._id}>
                <p className="muted">
                  {m.author?.name ?? 'Someone'} · {formatDateTime(m.createdAt)}
                </p>
                <RichText html={m.text} />
              </li>
            ))}
          </ol>
        )}
        {canWrite ? (
          <form
            className="form"
            onSubmit={(e) => {
              e.preventDefault();
              addComment.mutate(
                { params: { path }, body: { comments: [textToHtml(comment)] } },
                {
                  onSuccess: () => {
                    setComment('');
                    void refresh(P.case);
                  },
                },
              );
            }}
          >
            <TextArea label="New comment" value={comment} onChange={setComment} rows={3} required />
            <FormError error={addComment.error} />
            <button type="submit" className="button" disabled={addComment.isPending || !comment.trim()}>
              Add comment
            </button>
          </form>
        ) : null}
      </section>
      <section className="card" aria-labelledby="case-links">
        <h2 id="case-links">Issues and automated tests</h2>
        <h3>Linked issues</h3>
        {c.issues.length === 0 ? (
          <p className="muted">No linked issues.</p>
        ) : (
          <ul className="manual-tags" aria-label="Linked issues">
            {c.issues.map((key) => (
              <li key={key} className="manual-tag">
                {key}
              </li>
            ))}
          </ul>
        )}
        {canWrite ? (
          <form
            className="manual-inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              addIssue.mutate(
                { params: { path }, body: { issues: [issue.trim()] } },
                {
                  onSuccess: () => {
                    setIssue('');
                    void refresh(P.case);
                  },
                },
              );
            }}
          >
            <TextField label="Issue key" value={issue} onChange={setIssue} placeholder="PROJ-123" required />
            <button type="submit" className="button" disabled={addIssue.isPending || !issue.trim()}>
              Link issue
            </button>
            <FormError error={addIssue.error} />
          </form>
        ) : null}
        <h3>Linked automated tests</h3>
        {c.linkedTests.length === 0 ? (
          <p className="muted">No automated test is linked to this case.</p>
        ) : (
          <ul className="link-list">
            {c.linkedTests.map((t) => (
              <li key={t._id}>
                <Link to={href(PAGES.test, { projectId, testId: t._id })}>{t.displayTitle ?? t.fullTitle}</Link>
                <span className="muted"> · {t.source === 'auto_created' ? 'linked automatically' : 'linked by hand'}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
