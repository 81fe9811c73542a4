/**
 * `/projects/:projectId/manual-runs/:runId`: the execution view. At the top the run's progress (its rollup
 * counts per verdict) and, for writers, the run's card (close, edit); on a phone the progress is one line (the counts
 * behind a button) and the run's card comes after the execution view (styles.css), so that the current case's title
 * and verdict buttons are on the first screen. Then its cases (filtered by verdict or assignee, paged, the current
 * case in the URL) beside the current case (on a phone the case comes first, its list below): its steps with a
 * result per step, verdict buttons, assignee, elapsed time and a comment. Keyboard: p/f/b/s/r/u set the verdict,
 * j/k or ↓/↑ move between cases; keys never fire while the person types in a field. A verdict sends the time spent
 * on the case since it was opened (`elapsed`, added to what the API has). Quick verdicts and detailed results are
 * separate writes (the API refuses them mixed).
 */
import { useEffect, useEffectEvent, useId, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { $api, isErrorEnvelope, type ErrorEnvelope, type Schemas } from '../../api/client';
import { keepSameList } from '../../api/lists';
import { useAccount, useProjectAccess } from '../../api/account';
import { href, PAGES } from '../../app/paths';
import { Page } from '../../ui/Page';
import { EmptyPageText, pageNumber, Pagination } from '../../ui/Pagination';
import { formatDateTime, formatDuration } from '../../ui/format';
import { PHONE, useMediaQuery } from '../../ui/media';
import { AN_ID, oneOf, PAGE_NUMBER, useSearchState } from '../../ui/search-state';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { changedFields } from './changes';
import { TextArea, TextField } from './components/fields';
import { FormError } from '../../ui/FormError';
import { cleanIssues, LinkedIssuesEditor, LinkedIssuesView, type LinkedIssue } from './components/LinkedIssues';
import { NotLoaded } from './components/NotFound';
import { OpenBadge } from './components/OpenBadge';
import { ReleaseSelect } from './components/ReleaseSelect';
import { htmlToText, RichText, textToHtml } from './components/RichText';
import { RunProgress } from './components/RunProgress';
import { StepsView } from './components/StepsView';
import { VerdictBadge } from './components/VerdictBadge';
import { P, useRefresh, useReleaseOptions, type Release } from './data';
import { Tags } from './components/Tags';
import { splitList, valueLabel, VERDICT_KEYS, VERDICTS, type Verdict } from './values';
import './manual.css';

type Run = Schemas['ManualRun'];
type RunCase = Schemas['ManualRunTestCase'];

const KEY_VERDICT = new Map(Object.entries(VERDICT_KEYS).map(([verdict, key]) => [key, verdict as Verdict]));

/** Shortcuts never fire while the person types (or picks) in a field. */
function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

export function ManualRunPage() {
  const { projectId = '', runId = '' } = useParams();
  const { canWrite } = useProjectAccess(projectId);
  const run = $api.useQuery('get', P.run, { params: { path: { projectId, runId } } });
  const releases = useReleaseOptions(projectId);
  const back = href(PAGES.manualRuns, { projectId });
  const phone = useMediaQuery(PHONE);
  if (run.isPending) return <Loading label="Loading the run…" />;
  if (run.error) return <NotLoaded error={run.error} title="Manual run" what="Manual run" back={back} backLabel="Back to manual runs" />;
  const r = run.data.data;
  const release = releases.data?.data.find((x) => x._id === r.releaseId);
  const canExecute = canWrite && r.status === 'open';
  // On a phone the run's card (close, edit) comes after the execution view, so that the current case and its verdict
  // buttons are on the first screen: in the document too, so that the reading and focus order are the order shown.
  // Keyed, the card is moved, not made again, when the width crosses the line (an open edit form keeps what was typed).
  const admin = canWrite ? <RunAdmin key="admin" projectId={projectId} run={r} releases={releases.data?.data ?? []} /> : null;
  const closed =
    r.status === 'closed' ? (
      <p key="closed" className="callout">
        This run is closed: its verdicts can no longer change.
      </p>
    ) : null;
  const execution = <Execution key="execution" projectId={projectId} run={r} canExecute={canExecute} />;

  return (
    <Page
      title={r.name}
      subtitle={
        <>
          <OpenBadge status={r.status} />
          {r.releaseId ? (
            <>
              {' · release '}
              <Link to={href(PAGES.release, { projectId, releaseId: r.releaseId })}>{release?.name ?? 'Release'}</Link>
            </>
          ) : null}
          {r.environment ? ` · ${r.environment}` : ''}
          {r.closedAt ? ` · closed ${formatDateTime(r.closedAt)}` : ` · created ${formatDateTime(r.createdAt)}`}
        </>
      }
      actions={<Link to={back}>Back to manual runs</Link>}
    >
      <Progress stats={r.stats} />
      {phone ? [closed, execution, admin] : [admin, closed, execution]}
      <RunInfo run={r} />
    </Page>
  );
}

/**
 * The run's progress: its bar, "n of total tested" and the count per verdict. On a phone (below 40rem, styles.css)
 * the heading, the bar and "n of total tested" make one line and the counts fold behind a button, so that the
 * current case and its verdict buttons are on the first screen. Folded, the counts are only visually hidden: the
 * live region announces every change as wide, and a screen reader reads them where they are.
 */
function Progress({ stats }: { stats: Run['stats'] }) {
  const [open, setOpen] = useState(false);
  const region = useId();
  const folded = useMediaQuery(PHONE) && !open;
  return (
    <section className={`card run-progress-card${open ? ' run-progress-card-open' : ''}`} aria-labelledby="run-progress-heading">
      <h2 id="run-progress-heading">Progress</h2>
      <button
        type="button"
        className="button button-small run-progress-toggle"
        aria-expanded={open}
        aria-controls={region}
        onClick={() => setOpen(!open)}
      >
        Counts<span className="visually-hidden"> per verdict</span>
        <svg aria-hidden="true" viewBox="0 0 16 16" width={12} height={12}>
          <path d="M3 6l5 5 5-5" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" />
        </svg>
      </button>
      <div id={region} role="status" aria-live="polite" aria-atomic="true">
        <RunProgress stats={stats} detailed countsHidden={folded} />
      </div>
    </section>
  );
}

function Execution({ projectId, run, canExecute }: { projectId: string; run: Run; canExecute: boolean }) {
  const [q, set, read] = useSearchState(['case', 'result', 'assignee', 'page'] as const, {
    case: AN_ID,
    result: oneOf(VERDICTS),
    assignee: oneOf(['me', 'none']),
    page: PAGE_NUMBER,
  });
  const me = useAccount().data?.data.user;
  const assignee = q.assignee === 'me' ? me?.id : q.assignee === 'none' ? 'none' : undefined;
  const result = VERDICTS.find((v) => v === q.result);
  const cases = $api.useQuery(
    'get',
    P.runCases,
    { params: { path: { projectId, runId: run._id }, query: { page: pageNumber(q.page), limit: 100, result, assignee } } },
    // The run's page or filter shown stays while another loads (not another run's: keepSameList).
    { enabled: q.assignee !== 'me' || Boolean(me), placeholderData: keepSameList({ projectId, runId: run._id }) },
  );
  const busy = cases.isPlaceholderData;
  const list = cases.data?.data ?? [];
  // While another page or filter loads, no case of the old one becomes the current case by default.
  const caseOf = (id: string | undefined) => list.find((c) => c._id === id) ?? (id || busy ? undefined : list[0]);
  const current = caseOf(q.case);
  const rows = useRef(new Map<string, HTMLTableRowElement>());
  // The clock of the current case: it starts when the case is opened (or the page loads) and again after
  // each verdict; a verdict adds its seconds to the case's `elapsed`. The ref is the clock as last started,
  // for a key that comes before the page has rendered the case it moved to.
  const [loadedAt] = useState(() => Date.now());
  const [clock, setClock] = useState({ id: '', at: 0 });
  const lastClock = useRef(clock);
  const sinceOf = (c: RunCase, k: { id: string; at: number }) => (k.id === c._id ? k.at : loadedAt);
  const since = current ? sinceOf(current, clock) : loadedAt;
  const startClock = (c: RunCase) => {
    lastClock.current = { id: c._id, at: Date.now() };
    setClock(lastClock.current);
  };
  const caseView = useRef<HTMLElement>(null);
  const listView = useRef<HTMLElement>(null);
  /**
   * Side by side, the chosen case's row is kept in view; one above the other (a phone), the case is what the
   * tester looks at: a case chosen in the list below brings it into view, a key leaves the page where it is.
   */
  const select = (c: RunCase | undefined, from: 'list' | 'key') => {
    if (!c) return;
    set({ case: c._id });
    startClock(c);
    const stacked =
      caseView.current && listView.current
        ? caseView.current.getBoundingClientRect().bottom <= listView.current.getBoundingClientRect().top
        : false;
    if (!stacked) rows.current.get(c._id)?.scrollIntoView({ block: 'nearest' });
    else if (from === 'list') caseView.current?.scrollIntoView({ block: 'start' });
  };
  const refresh = useRefresh();
  // A verdict is pending until the lists show it (the returned promise is awaited): meanwhile its buttons are
  // disabled and its keys ignored, so two quick keys cannot race (the later one stored first) or add their
  // seconds to an `elapsed` the page has not seen updated.
  const verdict = $api.useMutation('patch', P.runCase, { onSuccess: () => refresh(P.run, P.runCases, P.runs) });
  const setVerdict = (c: RunCase, result: Verdict) => {
    const spent = Math.max(0, Math.round((Date.now() - sinceOf(c, lastClock.current)) / 1000));
    startClock(c);
    verdict.mutate({
      params: { path: { projectId, runId: run._id, caseRef: c._id } },
      body: { result, elapsed: (c.elapsed ?? 0) + spent },
    });
  };

  const onKey = useEffectEvent((e: KeyboardEvent) => {
    // Not on the rows of a page being replaced (busy): a key would act on a case the list is leaving.
    if (busy || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
    // From the case last picked, which the page may not show yet: keys come faster than a busy page renders.
    const picked = caseOf(read().case);
    const index = picked ? list.indexOf(picked) : -1;
    if (e.key === 'j' || e.key === 'ArrowDown') {
      select(list[Math.min(index + 1, list.length - 1)], 'key');
    } else if (e.key === 'k' || e.key === 'ArrowUp') {
      select(list[Math.max(index - 1, 0)], 'key');
    } else if (canExecute && picked && KEY_VERDICT.has(e.key)) {
      if (!verdict.isPending) setVerdict(picked, KEY_VERDICT.get(e.key)!);
    } else return;
    e.preventDefault();
  });
  useEffect(() => {
    const listener = (e: KeyboardEvent) => onKey(e);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);

  return (
    <>
      <Shortcuts canExecute={canExecute} />
      <div className="execution">
        {/* The current case before the list, as a phone shows them one above the other (manual.css): a tester
            reaches the verdict first; wider, the list is placed on the left. */}
        <section ref={caseView} className="card execution-case" aria-labelledby="current-case-heading">
          {current ? (
            <CurrentCase
              key={current._id}
              projectId={projectId}
              runCase={current}
              canExecute={canExecute}
              since={since}
              verdict={{ set: setVerdict, error: verdict.error, pending: verdict.isPending }}
            />
          ) : (
            <>
              <h2 id="current-case-heading">Current case</h2>
              <p className="muted">{q.case ? 'The chosen case is not in this list (see the filters).' : 'Choose a case.'}</p>
            </>
          )}
        </section>
        <section ref={listView} className="card execution-list" aria-labelledby="run-cases-heading">
          <h2 id="run-cases-heading">Cases</h2>
          <div className="filters">
            <div className="field">
              <label htmlFor="run-case-result">Verdict</label>
              <select
                id="run-case-result"
                value={result ?? ''}
                onChange={(e) => set({ result: e.target.value || undefined, page: undefined })}
              >
                <option value="">Any</option>
                {VERDICTS.map((v) => (
                  <option key={v} value={v}>
                    {valueLabel(v)}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="run-case-assignee">Assignee</label>
              <select
                id="run-case-assignee"
                value={q.assignee === 'me' || q.assignee === 'none' ? q.assignee : ''}
                onChange={(e) => set({ assignee: e.target.value || undefined, page: undefined })}
              >
                <option value="">Anyone</option>
                <option value="me">Me</option>
                <option value="none">Unassigned</option>
              </select>
            </div>
          </div>
          {cases.isPending ? (
            <Loading label="Loading the run's cases…" />
          ) : cases.error ? (
            <ErrorView error={cases.error} />
          ) : list.length === 0 ? (
            <Empty>
              <EmptyPageText
                pagination={cases.data?.pagination}
                none={result || q.assignee ? 'No case of this run matches.' : 'This run holds no cases.'}
                onFirst={() => set({ page: undefined, case: undefined })}
              />
            </Empty>
          ) : (
            <>
              <div className="table-scroll" aria-busy={busy || undefined}>
                <table className="table execution-table">
                  <thead>
                    <tr>
                      <th scope="col">Case</th>
                      <th scope="col">Verdict</th>
                      <th scope="col">Assignee</th>
                      <th scope="col" className="num">
                        Elapsed
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.map((c) => (
                      <tr
                        key={c._id}
                        ref={(el) => {
                          if (el) rows.current.set(c._id, el);
                          else rows.current.delete(c._id);
                        }}
                        className={c === current ? 'execution-current' : undefined}
                        aria-current={c === current ? 'true' : undefined}
                      >
                        <td>
                          <button type="button" className="link-button" onClick={() => select(c, 'list')}>
                            <span className="mono">{c.testCase.caseId}</span> {c.testCase.title}
                          </button>
                          {c.testCase.suite ? <span className="muted execution-suite">{c.testCase.suite.name}</span> : null}
                        </td>
                        <td>
                          <VerdictBadge verdict={c.result} />
                        </td>
                        <td>{c.assignee?.name ?? '—'}</td>
                        <td className="num">{c.elapsed === null ? '—' : formatDuration(c.elapsed * 1000)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pagination pagination={cases.data.pagination} onPage={(p) => set({ page: p > 1 ? p : undefined, case: undefined })} />
            </>
          )}
        </section>
      </div>
    </>
  );
}

function Shortcuts({ canExecute }: { canExecute: boolean }) {
  return (
    <section className="shortcuts" aria-labelledby="shortcuts-heading">
      <h2 id="shortcuts-heading" className="shortcuts-title">
        Keyboard shortcuts
      </h2>
      <dl>
        {canExecute
          ? VERDICTS.map((v) => (
              <div key={v}>
                <dt>
                  <kbd>{VERDICT_KEYS[v]}</kbd>
                </dt>
                <dd>{valueLabel(v)}</dd>
              </div>
            ))
          : null}
        <div>
          <dt>
            <kbd>j</kbd> / <kbd>↓</kbd>
          </dt>
          <dd>Next case</dd>
        </div>
        <div>
          <dt>
            <kbd>k</kbd> / <kbd>↑</kbd>
          </dt>
          <dd>Previous case</dd>
        </div>
      </dl>
    </section>
  );
}

interface VerdictControl {
  set: (c: RunCase, result: Verdict) => void;
  error: unknown;
  pending: boolean;
}

function CurrentCase({
  projectId,
  runCase: c,
  canExecute,
  since,
  verdict,
}: {
  projectId: string;
  runCase: RunCase;
  canExecute: boolean;
  since: number;
  verdict: VerdictControl;
}) {
  const testCase = $api.useQuery('get', P.case, { params: { path: { projectId, caseId: c.testCase._id } } });

  return (
    <>
      <h2 id="current-case-heading">
        <span className="mono">{c.testCase.caseId}</span> {c.testCase.title}
      </h2>
      <p className="muted">
        {c.testCase.suite ? `${c.testCase.suite.name} · ` : ''}
        <Link to={href(PAGES.manualTestCase, { projectId, caseId: c.testCase.caseId })}>Open the test case</Link>
      </p>
      <div className="execution-verdict">
        <span>
          Verdict: <VerdictBadge verdict={c.result} />
        </span>
        {canExecute ? (
          <div className="verdict-buttons" role="group" aria-label="Set the verdict">
            {VERDICTS.map((v) => (
              <button
                key={v}
                type="button"
                className={`button verdict-button verdict-button-${v}`}
                aria-pressed={c.result === v}
                aria-keyshortcuts={VERDICT_KEYS[v]}
                disabled={verdict.pending}
                onClick={() => verdict.set(c, v)}
              >
                {valueLabel(v)} <kbd aria-hidden="true">{VERDICT_KEYS[v]}</kbd>
              </button>
            ))}
          </div>
        ) : null}
        <FormError error={verdict.error} />
      </div>
      <Elapsed runCase={c} since={since} running={canExecute} />
      <Assignee projectId={projectId} runCase={c} canExecute={canExecute} />
      <h3>Steps</h3>
      {testCase.isPending ? (
        <Loading label="Loading the steps…" />
      ) : testCase.error ? (
        <ErrorView error={testCase.error} />
      ) : (
        <>
          {testCase.data.data.preconditions ? (
            <div className="manual-text-block">
              <h4>Preconditions</h4>
              <p className="manual-pre">{testCase.data.data.preconditions}</p>
            </div>
          ) : null}
          <StepResults projectId={projectId} runCase={c} steps={testCase.data.data.steps} canExecute={canExecute} />
        </>
      )}
      <CaseComment projectId={projectId} runCase={c} canExecute={canExecute} />
    </>
  );
}

/** The elapsed time the API has, and (while executing) the clock of this visit. */
function Elapsed({ runCase: c, since, running }: { runCase: RunCase; since: number; running: boolean }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [running]);
  return (
    <p className="execution-elapsed">
      Elapsed: <strong>{c.elapsed === null ? 'not recorded' : formatDuration(c.elapsed * 1000)}</strong>
      {running ? (
        <span className="muted"> · this visit {formatDuration(Math.max(0, now - since))} (added with the next verdict)</span>
      ) : null}
    </p>
  );
}

function Assignee({ projectId, runCase: c, canExecute }: { projectId: string; runCase: RunCase; canExecute: boolean }) {
  const me = useAccount().data?.data.user;
  const [email, setEmail] = useState('');
  const assign = $api.useMutation('patch', P.runCase);
  const refresh = useRefresh();
  const send = (assigneeUserId: string | null) =>
    assign.mutate(
      { params: { path: { projectId, runId: c.runId, caseRef: c._id } }, body: { assigneeUserId } },
      {
        onSuccess: () => {
          setEmail('');
          void refresh(P.runCases);
        },
      },
    );
  return (
    <div className="execution-assignee">
      <p>
        Assignee: <strong>{c.assignee ? `${c.assignee.name} <${c.assignee.email}>` : 'nobody'}</strong>
      </p>
      {canExecute ? (
        <div className="manual-inline-form">
          {me && c.assignee?._id !== me.id ? (
            <button type="button" className="button button-small" disabled={assign.isPending} onClick={() => send(me.id)}>
              Assign to me
            </button>
          ) : null}
          {c.assignee ? (
            <button type="button" className="button button-small" disabled={assign.isPending} onClick={() => send(null)}>
              Unassign
            </button>
          ) : null}
          <form
            className="manual-inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              send(email.trim());
            }}
          >
            <TextField label="Assign to (e-mail)" type="email" value={email} onChange={setEmail} required />
            <button type="submit" className="button button-small" disabled={assign.isPending}>
              Assign
            </button>
          </form>
          <FormError error={assign.error} title="Not assigned" />
        </div>
      ) : null}
    </div>
  );
}

const STEP_VERDICTS: Verdict[] = ['passed', 'failed', 'blocked', 'skipped'];

/**
 * A result per top-level step (`stepResults` by step number): a verdict and the actual result. Each write
 * sends every step result of the case (the API replaces the list).
 */
function StepResults({
  projectId,
  runCase: c,
  steps,
  canExecute,
}: {
  projectId: string;
  runCase: RunCase;
  steps: Schemas['ManualTestCase']['steps'];
  canExecute: boolean;
}) {
  // One write at a time per run case, in order (TanStack's mutation scope): a verdict clicked while the actual result
  // typed just before is still being saved is sent after it, never lost, never overtaken. The buttons stay enabled:
  // a button disabled by the save that its own mousedown started (the input's blur) would swallow the click.
  const save = $api.useMutation('patch', P.runCase, { scope: { id: `run-case-${c._id}` } });
  const refresh = useRefresh();
  const [comments, setComments] = useState<Record<number, string>>(() =>
    Object.fromEntries(c.stepResults.map((s) => [s.order, htmlToText(s.comment)])),
  );
  const resultOf = (order: number) => c.stepResults.find((s) => s.order === order);
  const send = (order: number, status: Verdict) => {
    const others = c.stepResults.filter((s) => s.order !== order);
    const stepResults = [...others, { order, status, comment: textToHtml(comments[order] ?? '') }].sort((a, b) => a.order - b.order);
    save.mutate(
      { params: { path: { projectId, runId: c.runId, caseRef: c._id } }, body: { stepResults } },
      { onSuccess: () => void refresh(P.runCases) },
    );
  };
  const extra = (order: number) => {
    const result = resultOf(order);
    if (!canExecute) {
      return result ? (
        <div className="step-result">
          Result: <VerdictBadge verdict={result.status} />
          {result.comment ? <RichText html={result.comment} /> : null}
        </div>
      ) : null;
    }
    return (
      <div className="step-result">
        <div className="verdict-buttons" role="group" aria-label={`Result of step ${order}`}>
          {STEP_VERDICTS.map((v) => (
            <button
              key={v}
              type="button"
              className={`button button-small verdict-button verdict-button-${v}`}
              aria-pressed={result?.status === v}
              onClick={() => send(order, v)}
            >
              {valueLabel(v)}
              <span className="visually-hidden"> step {order}</span>
            </button>
          ))}
        </div>
        <label className="manual-inline-field">
          <span>
            Actual result<span className="visually-hidden"> of step {order}</span>
          </span>
          <input
            value={comments[order] ?? ''}
            onChange={(e) => setComments({ ...comments, [order]: e.target.value })}
            onBlur={() => {
              // A typed actual result is kept with the step's verdict (untested until one is chosen).
              const before = htmlToText(result?.comment ?? '');
              if ((comments[order] ?? '') !== before) send(order, result?.status ?? 'untested');
            }}
          />
        </label>
      </div>
    );
  };
  return (
    <>
      <StepsView steps={steps} extra={extra} />
      <FormError error={save.error} title="Step result not saved" />
    </>
  );
}

function CaseComment({ projectId, runCase: c, canExecute }: { projectId: string; runCase: RunCase; canExecute: boolean }) {
  const [text, setText] = useState(() => htmlToText(c.comment));
  const [issues, setIssues] = useState<LinkedIssue[]>(c.linkedIssues);
  const save = $api.useMutation('patch', P.runCase);
  const refresh = useRefresh();
  if (!canExecute) {
    return (
      <>
        <h3>Comment</h3>
        <RichText html={c.comment} empty="No comment." />
        <h3>Linked issues</h3>
        <LinkedIssuesView issues={c.linkedIssues} />
      </>
    );
  }
  return (
    <form
      className="form-wide execution-comment"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(
          {
            params: { path: { projectId, runId: c.runId, caseRef: c._id } },
            body: { comment: textToHtml(text), linkedIssues: cleanIssues(issues) },
          },
          { onSuccess: () => void refresh(P.runCases) },
        );
      }}
    >
      <h3>Comment and actual result</h3>
      <TextArea label="Comment" value={text} onChange={setText} rows={3} />
      <LinkedIssuesEditor issues={issues} onChange={setIssues} />
      <FormError error={save.error} />
      {save.isSuccess ? (
        <p className="muted" role="status">
          Saved.
        </p>
      ) : null}
      <button type="submit" className="button" disabled={save.isPending}>
        Save comment
      </button>
    </form>
  );
}

const isConflict = (error: unknown) => isErrorEnvelope(error) && error.error.code === 'CONFLICT';

/** An edit refused as the run was closed meanwhile, in the page's words (the API's message names `releaseId`). */
const CLOSED_MEANWHILE: ErrorEnvelope = {
  success: false,
  error: {
    code: 'CONFLICT',
    message:
      'This run was closed meanwhile (in another tab, or by someone else): a closed run keeps its fields, only its release can change',
  },
};

/** Writers close the run and edit its fields (only changes are sent; a closed run takes only its release). */
function RunAdmin({ projectId, run: r, releases }: { projectId: string; run: Run; releases: Release[] }) {
  const [open, setOpen] = useState(false);
  const update = $api.useMutation('patch', P.run);
  const close = $api.useMutation('patch', P.run);
  const refresh = useRefresh();
  return (
    <section className="card run-admin" aria-labelledby="run-admin-heading">
      <h2 id="run-admin-heading">Run</h2>
      <div className="manual-toolbar">
        {r.status === 'open' ? (
          <button
            type="button"
            className="button"
            disabled={close.isPending}
            onClick={() =>
              close.mutate(
                { params: { path: { projectId, runId: r._id } }, body: { status: 'closed' } },
                { onSuccess: () => void refresh(P.run, P.runs) },
              )
            }
          >
            Close run
          </button>
        ) : null}
        <button type="button" className="button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Close the form' : 'Edit run'}
        </button>
        <FormError error={close.error} title="Not closed" />
      </div>
      {open ? (
        <RunForm
          // Closed meanwhile: the form starts again from the stored run, its fields locked (nothing typed is kept).
          key={r.status}
          run={r}
          releases={releases}
          error={isConflict(update.error) ? CLOSED_MEANWHILE : update.error}
          pending={update.isPending}
          onSubmit={(body) =>
            update.mutate(
              { params: { path: { projectId, runId: r._id } }, body },
              {
                onSuccess: () => {
                  setOpen(false);
                  void refresh(P.run, P.runs, P.runCases);
                },
                // Closed in another tab (the only conflict of a run's edit): the page shows the run as it is now.
                onError: (error) => void (isConflict(error) && refresh(P.run, P.runs)),
              },
            )
          }
        />
      ) : null}
    </section>
  );
}

interface RunDraft {
  name: string;
  releaseId: string;
  environment: string;
  state: string;
  forecast: string;
  tags: string;
  note: string;
  links: { title: string; url: string }[];
  linkedIssues: LinkedIssue[];
  selectionMode: Run['selectionMode'];
}

function runDraft(r: Run): RunDraft {
  return {
    name: r.name,
    releaseId: r.releaseId ?? '',
    environment: r.environment ?? '',
    state: r.state ?? '',
    forecast: r.forecast === null ? '' : String(r.forecast),
    tags: r.tags.join(', '),
    note: htmlToText(r.note),
    links: r.links,
    linkedIssues: r.linkedIssues,
    selectionMode: r.selectionMode,
  };
}

/** What changed; an emptied release or forecast is sent as null (detach, clear). */
function runUpdateBody(before: RunDraft, after: RunDraft) {
  const full = (d: RunDraft) => ({
    name: d.name,
    releaseId: d.releaseId || null,
    environment: d.environment.trim(),
    state: d.state.trim(),
    forecast: d.forecast.trim() === '' ? null : Number(d.forecast),
    tags: splitList(d.tags),
    note: textToHtml(d.note),
    links: d.links,
    linkedIssues: cleanIssues(d.linkedIssues),
    selectionMode: d.selectionMode,
  });
  return changedFields(full(before), full(after));
}

function RunForm({
  run,
  releases,
  error,
  pending,
  onSubmit,
}: {
  run: Run;
  releases: Release[];
  error: unknown;
  pending: boolean;
  onSubmit: (body: ReturnType<typeof runUpdateBody>) => void;
}) {
  // What the form started from, not the run as read again since (a verdict set on this page reads it again): a
  // field another tab changed meanwhile is then no change of this form's, and is not sent back over it.
  const [initial] = useState(() => runDraft(run));
  const [d, setDraft] = useState(initial);
  const [nothing, setNothing] = useState(false);
  const set = (patch: Partial<RunDraft>) => setDraft((prev) => ({ ...prev, ...patch }));
  const closed = run.status === 'closed';
  return (
    <form
      className="form-wide"
      aria-label="Edit run"
      onSubmit={(e) => {
        e.preventDefault();
        const body = runUpdateBody(initial, d);
        setNothing(Object.keys(body).length === 0);
        if (Object.keys(body).length > 0) onSubmit(body);
      }}
    >
      {closed ? <p className="muted">A closed run keeps its fields; only its release can change.</p> : null}
      <div className="form-grid">
        <TextField label="Name" value={d.name} onChange={(name) => set({ name })} required disabled={closed} />
        <ReleaseSelect releases={releases} value={d.releaseId} onChange={(releaseId) => set({ releaseId })} />
        <TextField label="Environment" value={d.environment} onChange={(environment) => set({ environment })} disabled={closed} />
        <TextField label="Workflow state" value={d.state} onChange={(state) => set({ state })} disabled={closed} />
        <TextField label="Forecast" type="number" value={d.forecast} onChange={(forecast) => set({ forecast })} disabled={closed} />
        <TextField label="Tags" value={d.tags} onChange={(tags) => set({ tags })} hint="Comma-separated" disabled={closed} />
      </div>
      {!closed ? (
        <>
          <TextArea label="Note" value={d.note} onChange={(note) => set({ note })} rows={3} />
          {run.selectionMode === 'selected' ? (
            <label className="manual-check">
              <input
                type="checkbox"
                checked={d.selectionMode === 'all'}
                onChange={(e) => set({ selectionMode: e.target.checked ? 'all' : 'selected' })}
              />
              Add every case of the project to this run (verdicts are kept)
            </label>
          ) : null}
          <fieldset className="manual-fieldset">
            <legend>Links</legend>
            {d.links.map((l, i) => (
              <div key={i} className="manual-row">
                <label className="manual-inline-field">
                  <span>
                    Link title<span className="visually-hidden"> {i + 1}</span>
                  </span>
                  <input
                    value={l.title}
                    onChange={(e) => set({ links: d.links.map((x, j) => (j === i ? { ...x, title: e.target.value } : x)) })}
                  />
                </label>
                <label className="manual-inline-field">
                  <span>
                    Link URL<span className="visually-hidden"> {i + 1}</span>
                  </span>
                  <input
                    value={l.url}
                    onChange={(e) => set({ links: d.links.map((x, j) => (j === i ? { ...x, url: e.target.value } : x)) })}
                  />
                </label>
                <button
                  type="button"
                  className="button button-small button-danger"
                  onClick={() => set({ links: d.links.filter((_, j) => j !== i) })}
                >
                  Remove<span className="visually-hidden"> link {i + 1}</span>
                </button>
              </div>
            ))}
            <button type="button" className="button button-small" onClick={() => set({ links: [...d.links, { title: '', url: '' }] })}>
              Add link
            </button>
          </fieldset>
          <LinkedIssuesEditor issues={d.linkedIssues} onChange={(linkedIssues) => set({ linkedIssues })} />
        </>
      ) : null}
      <FormError error={error} />
      {nothing ? (
        <p className="muted" role="status">
          Nothing changed.
        </p>
      ) : null}
      <button type="submit" className="button button-primary" disabled={pending}>
        Save run
      </button>
    </form>
  );
}

function RunInfo({ run: r }: { run: Run }) {
  return (
    <section className="card run-info" aria-labelledby="run-info-heading">
      <h2 id="run-info-heading">About this run</h2>
      <dl className="manual-details">
        <div>
          <dt>Selection</dt>
          <dd>
            {r.selectionMode === 'all' ? 'Every case of the project' : 'Chosen suites and cases'}
            {r.includeUnsorted ? ', with the cases in no suite' : ''}
          </dd>
        </div>
        <div>
          <dt>Workflow state</dt>
          <dd>{r.state ?? '—'}</dd>
        </div>
        <div>
          <dt>Forecast</dt>
          <dd>{r.forecast ?? '—'}</dd>
        </div>
        <div>
          <dt>Tags</dt>
          <dd>
            <Tags tags={r.tags} />
          </dd>
        </div>
        <div>
          <dt>Links</dt>
          <dd>
            {r.links.length === 0 ? (
              '—'
            ) : (
              <ul className="manual-inline-list">
                {r.links.map((l, i) => (
                  <li key={`${l.url}-${i}`}>
                    {/^https?:\/\//i.test(l.url) ? (
                      <a href={l.url} rel="noreferrer noopener" target="_blank">
                        {l.title}
                      </a>
                    ) : (
                      l.title
                    )}
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </div>
        <div>
          <dt>Linked issues</dt>
          <dd>
            <LinkedIssuesView issues={r.linkedIssues} />
          </dd>
        </div>
        <div>
          <dt>Last change</dt>
          <dd>
            {formatDateTime(r.updatedAt)}
            {r.metadata.lastModifiedBy ? ` by ${r.metadata.lastModifiedBy.name}` : ''}
          </dd>
        </div>
      </dl>
      <h3>Note</h3>
      <RichText html={r.note} empty="No note." />
    </section>
  );
}
