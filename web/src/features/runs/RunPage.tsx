/**
 * `/projects/:projectId/runs/:runId` — the page every run `url` of the API (run lists, webhooks, debug bundles)
 * opens: the run's facts and stats, its failures grouped by error, its spec files, and every test in one searchable,
 * filterable, virtualised list (fast at 10,000 tests). A running run is asked again every few seconds.
 */
import { Link, useParams } from 'react-router';
import { href, PAGES } from '../../app/paths';
import { Breakable } from '../../ui/Breakable';
import { Page } from '../../ui/Page';
import { StatusBadge } from '../../ui/StatusBadge';
import { TestPlace } from '../../ui/TestPlace';
import { formatCount, formatDateTime, formatDuration } from '../../ui/format';
import { Empty, Loading } from '../../ui/states';
import { FailedRead } from './components/NotFound';
import { RunFacts, RunStats } from './components/RunSummary';
import { RunArtifacts } from './components/RunArtifacts';
import { TestList } from './components/TestList';
import { runTitle, statusLabel, useFirstTests, useRun, useRunRows } from './data';
import './runs.css';

export function RunPage() {
  const { projectId = '', runId = '' } = useParams();
  const run = useRun(projectId, runId);
  const running = run.data?.data.status === 'running';
  const rows = useRunRows(projectId, runId, running);

  if (run.isPending) return <Loading label="Loading the run…" />;
  if (run.error)
    return (
      <Page title="Run">
        <FailedRead error={run.error} what="Run">
          <p>
            <Link to={href(PAGES.runs, { projectId })}>All runs</Link>
          </p>
        </FailedRead>
      </Page>
    );
  const r = run.data.data;
  const groups = r.errorGroups ?? [];
  return (
    <Page title={runTitle(r)} subtitle={<StatusBadge status={r.status} />}>
      <RunFacts run={r} />
      <RunStats stats={r.testStats} live={r.liveStats} />
      <RunArtifacts projectId={projectId} runId={runId} finished={!running} />

      <section aria-labelledby="failures-title">
        <h2 id="failures-title">Failures by error</h2>
        {groups.length === 0 ? (
          <Empty>No failed or flaky test in this run.</Empty>
        ) : (
          groups.map((g) => (
            <article key={g.id} className="error-group" aria-label={`Error: ${g.message.split('\n')[0]}`}>
              <pre className="error-text">{g.message}</pre>
              <p className="muted">
                {formatCount(g.count)} {g.count === 1 ? 'test' : 'tests'} ({g.failed} failed, {g.flaky} flaky)
              </p>
              <ul>
                {g.tests.map((t) => (
                  <li key={t.caseId}>
                    <Link to={href(PAGES.testCase, { projectId, runId, testCaseId: t.caseId })}>{t.title}</Link>{' '}
                    <span className="muted">
                      <TestPlace file={t.file} projectName={t.projectName} />
                    </span>
                  </li>
                ))}
              </ul>
            </article>
          ))
        )}
      </section>

      <section aria-labelledby="specs-title">
        <h2 id="specs-title">Spec files</h2>
        {rows.isPending ? (
          <Loading label="Loading the spec files…" />
        ) : rows.error ? (
          <FailedRead error={rows.error} what="Run" />
        ) : rows.data.data.specs.length === 0 ? (
          <Empty>No results yet.</Empty>
        ) : (
          <div className="table-scroll">
            <table className="table">
              <caption className="visually-hidden">Spec files of the run</caption>
              <thead>
                <tr>
                  <th scope="col">File</th>
                  {['Tests', 'Passed', 'Failed', 'Flaky', 'Skipped', 'Duration'].map((h) => (
                    <th key={h} scope="col" className="num">
                      {h}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.data.data.specs.map((s) => (
                  <tr key={s.id}>
                    <td className="mono">
                      <Link to={href(PAGES.spec, { projectId, runId, specId: s.id })}>
                        <Breakable text={s.file} />
                      </Link>
                    </td>
                    <td className="num">{formatCount(s.total)}</td>
                    <td className="num">{formatCount(s.passed)}</td>
                    <td className="num">{formatCount(s.failed)}</td>
                    <td className="num">{formatCount(s.flaky)}</td>
                    <td className="num">{formatCount(s.skipped)}</td>
                    <td className="num">{formatDuration(s.duration)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="tests-title">
        <h2 id="tests-title">Tests</h2>
        {rows.isPending ? (
          <FirstTests projectId={projectId} runId={runId} />
        ) : rows.error ? null : (
          <>
            {rows.data.data.total > rows.data.data.rows.length ? (
              <p className="callout">
                This run has {formatCount(rows.data.data.total)} results; the first {formatCount(rows.data.data.rows.length)} are listed.
              </p>
            ) : null}
            <TestList
              projectId={projectId}
              runId={runId}
              rows={rows.data.data.rows}
              specs={rows.data.data.specs}
              caption="Tests of the run"
            />
          </>
        )}
      </section>
      <p className="muted">
        Started {formatDateTime(r.startTime)}
        {r.endTime ? ` · finished ${formatDateTime(r.endTime)}` : ''}
      </p>
    </Page>
  );
}

/** The first page of the run's tests while all of them load (search and filters come with the whole list). */
function FirstTests({ projectId, runId }: { projectId: string; runId: string }) {
  const first = useFirstTests(projectId, runId, true);
  if (!first.data) return <Loading label="Loading the tests…" />;
  return (
    <>
      <Loading label={`Loading all ${formatCount(first.data.pagination.total)} tests for search and filters…`} />
      <table className="table test-list-table">
        <caption className="visually-hidden">First tests of the run</caption>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Test</th>
            <th scope="col">Spec file</th>
            <th scope="col">Project</th>
            <th scope="col" className="num">
              Duration
            </th>
          </tr>
        </thead>
        <tbody>
          {first.data.data.map((t) => (
            <tr key={t.id}>
              <td>
                <StatusBadge status={t.status} label={statusLabel(t.status)} />
              </td>
              <td className="cell-truncate">
                <Link to={href(PAGES.testCase, { projectId, runId, testCaseId: t.id })}>{t.fullTitle}</Link>
              </td>
              <td className="cell-truncate mono">{t.file}</td>
              <td className="cell-truncate">{t.projectName || '—'}</td>
              <td className="num">{formatDuration(t.duration)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
