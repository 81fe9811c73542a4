/**
 * `/projects/:projectId/runs/:runId/test-cases/:testCaseId` — one result (the `url` of a test case, a failure in a
 * webhook or a debug bundle): its error with stack and source snippet, the steps, every attempt with its own
 * error and output, the failure window on its branch with the commits around it, the retry command to copy, and
 * the attachments: the trace opens in the trace viewer, screenshots inline, videos playable, all downloadable.
 */
import { Link, Navigate, useParams } from 'react-router';
import { $api, type Schemas } from '../../api/client';
import type { paths } from '@assay/client';
import { href, PAGES } from '../../app/paths';
import { CopyButton } from '../../ui/CopyButton';
import { Page } from '../../ui/Page';
import { StatusBadge } from '../../ui/StatusBadge';
import { formatDateTime, formatDuration, formatPercent } from '../../ui/format';
import { Empty, Loading } from '../../ui/states';
import { FailedRead } from './components/NotFound';
import { Attachments } from './components/Attachments';
import { runTitle, shortHash, statusLabel } from './data';
import './runs.css';

type TestStep = Schemas['TestStep'];

export function TestCasePage() {
  const { projectId = '', runId = '', testCaseId = '' } = useParams();
  const detail = $api.useQuery('get', '/api/v1/public/{projectId}/test-cases/{caseId}', {
    params: { path: { projectId, caseId: testCaseId }, query: { include: 'history' } },
  });
  const bundle = $api.useQuery('get', '/api/v1/public/{projectId}/debug-bundle', {
    params: { path: { projectId }, query: { caseId: testCaseId } },
  });

  if (detail.isPending) return <Loading label="Loading the result…" />;
  if (detail.error)
    return (
      <Page title="Test result">
        <FailedRead error={detail.error} what="Test result">
          <p>
            <Link to={href(PAGES.run, { projectId, runId })}>Back to the run</Link>
          </p>
        </FailedRead>
      </Page>
    );
  const d = detail.data.data;
  const { test, run } = d.metadata;
  // A result is found by its own id; a link naming another run (edited, or copied from elsewhere) goes to its own.
  if (run.id !== runId) return <Navigate replace to={href(PAGES.testCase, { projectId, runId: run.id, testCaseId })} />;
  const o = d.overview;
  // The JSON form (format=md would answer text): the test scope carries the retry command and failure window.
  const bundleData = typeof bundle.data === 'object' ? bundle.data.data : undefined;
  const testBundle = bundleData && 'retryCommand' in bundleData ? bundleData : undefined;
  const summary = d.history?.summary;

  return (
    <Page
      title={test.title}
      subtitle={
        <>
          <StatusBadge status={o.status} label={statusLabel(o.status)} /> {test.titlePath.slice(0, -1).join(' › ')}
        </>
      }
    >
      <ul className="facts" aria-label="Result facts">
        <li>
          Run <Link to={href(PAGES.run, { projectId, runId: run.id })}>{runTitle(run)}</Link>
        </li>
        <li>
          Spec file{' '}
          <Link className="mono" to={href(PAGES.spec, { projectId, runId: run.id, specId: test.specId })}>
            {test.file}
            {test.location ? `:${test.location.line}` : ''}
          </Link>
        </li>
        {test.projectName ? (
          <li>
            Project <strong>{test.projectName}</strong>
          </li>
        ) : null}
        <li>
          Duration <strong>{formatDuration(o.duration)}</strong>
        </li>
        <li>
          Retries <strong>{o.retries}</strong>
        </li>
        <li>
          <Link to={href(PAGES.test, { projectId, testId: test.id })}>History of this test</Link>
          {summary
            ? ` (stability ${formatPercent(summary.stabilityScore)} over ${summary.totalRuns} ${summary.totalRuns === 1 ? 'run' : 'runs'})`
            : ''}
        </li>
      </ul>
      {o.quarantined ? (
        <p className="callout">
          Quarantined:{' '}
          {o.status === 'failed' || o.status === 'timedOut' || o.status === 'interrupted'
            ? 'this failure does not fail the run.'
            : 'if this test fails, its failure does not fail the run.'}
        </p>
      ) : null}

      <section aria-labelledby="error-title">
        <h2 id="error-title">Error</h2>
        {o.error ? <ErrorBlock error={o.error} /> : <Empty>No error: this test did not fail.</Empty>}
      </section>

      <section aria-labelledby="retry-title">
        <h2 id="retry-title">Run it again</h2>
        {bundle.isPending ? (
          <Loading label="Loading the retry command…" />
        ) : testBundle ? (
          <div className="command-line">
            <code className="output">{testBundle.retryCommand}</code>
            <CopyButton text={testBundle.retryCommand} label="Copy command" />
          </div>
        ) : (
          <Empty>No retry command for this result.</Empty>
        )}
      </section>

      <section aria-labelledby="steps-title">
        <h2 id="steps-title">Steps</h2>
        {o.steps.length === 0 ? <Empty>The reporter sent no steps.</Empty> : <Steps steps={o.steps} />}
      </section>

      <section aria-labelledby="attempts-title">
        <h2 id="attempts-title">Attempts</h2>
        {o.attempts.map((a) => (
          <details key={a.retry} className="card" open={o.attempts.length === 1}>
            <summary>
              Attempt {a.retry + 1} · <StatusBadge status={a.status} label={statusLabel(a.status)} /> · {formatDuration(a.duration)}
              {a.startTime ? ` · ${formatDateTime(a.startTime)}` : ''}
            </summary>
            {a.errors.map((e, i) => (
              <ErrorBlock key={i} error={e} />
            ))}
            {a.stdout.length > 0 ? (
              <>
                <h3>Standard output</h3>
                <pre className="output">{a.stdout.join('\n')}</pre>
              </>
            ) : null}
            {a.stderr.length > 0 ? (
              <>
                <h3>Standard error</h3>
                <pre className="output">{a.stderr.join('\n')}</pre>
              </>
            ) : null}
          </details>
        ))}
      </section>

      <section aria-labelledby="window-title">
        <h2 id="window-title">Failure window</h2>
        {testBundle ? <FailureWindow projectId={projectId} window={testBundle.failureWindow} /> : <Empty>No failure window.</Empty>}
      </section>

      <section aria-labelledby="attachments-title">
        <h2 id="attachments-title">Attachments</h2>
        <Attachments attachments={o.attachments} trace={testBundle?.trace} />
      </section>
    </Page>
  );
}

type TestError = NonNullable<Schemas['TestStep']['error']>;

function ErrorBlock({ error }: { error: TestError }) {
  return (
    <div>
      <pre className="error-text">{error.message}</pre>
      {error.location ? (
        <p className="muted mono">
          {error.location.file}:{error.location.line}:{error.location.column}
        </p>
      ) : null}
      {error.snippet ? <pre className="output">{error.snippet}</pre> : null}
      {error.stack ? (
        <details>
          <summary>Stack trace</summary>
          <pre className="output">{error.stack}</pre>
        </details>
      ) : null}
    </div>
  );
}

function Steps({ steps }: { steps: TestStep[] }) {
  return (
    <ul className="steps-tree">
      {steps.map((s, i) => (
        <li key={i} className={s.error ? 'step-failed' : undefined}>
          <span className="step-title">
            {s.error ? '✗ ' : '✓ '}
            {s.title}
          </span>{' '}
          <span className="muted">
            {s.category ? `${s.category} · ` : ''}
            {formatDuration(s.duration)}
          </span>
          {s.error ? <pre className="error-text">{s.error.message}</pre> : null}
          {s.steps.length > 0 ? <Steps steps={s.steps} /> : null}
        </li>
      ))}
    </ul>
  );
}

type Bundle = Extract<
  paths['/api/v1/public/{projectId}/debug-bundle']['get']['responses'][200]['content']['application/json'],
  { success: true }
>['data'];
type Window = Extract<Bundle, { retryCommand: string }>['failureWindow'];

function FailureWindow({ projectId, window }: { projectId: string; window: Window }) {
  const point = (label: string, p: Window['lastPassing']) =>
    p ? (
      <li>
        {label}: <Link to={href(PAGES.testCase, { projectId, runId: p.runId, testCaseId: p.caseId })}>Run #{p.runCounter}</Link>{' '}
        <StatusBadge status={p.status} label={statusLabel(p.status)} /> {formatDateTime(p.at)} ·{' '}
        <span className="mono">{p.commit.hash ? shortHash(p.commit.hash) : '—'}</span> {p.commit.message.split('\n')[0]}
        {p.commit.author ? ` (${p.commit.author})` : ''}
      </li>
    ) : (
      <li>
        {label}: <span className="muted">none on this branch</span>
      </li>
    );
  return (
    <>
      <p>
        On branch <span className="mono">{window.branch || '—'}</span>: {window.failingRunsSince} failing{' '}
        {window.failingRunsSince === 1 ? 'run' : 'runs'} since it last passed.
      </p>
      <ul>
        {point('Last passing', window.lastPassing)}
        {point('First failing', window.firstFailing)}
      </ul>
    </>
  );
}
