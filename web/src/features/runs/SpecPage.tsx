/**
 * `/projects/:projectId/runs/:runId/specs/:specId` — one spec file in one run (the `suite` link of debug bundles):
 * its figures and its tests, searchable and filterable like the run's list.
 */
import { Link, useParams } from 'react-router';
import { href, PAGES } from '../../app/paths';
import { Page } from '../../ui/Page';
import { formatCount, formatDuration } from '../../ui/format';
import { Loading } from '../../ui/states';
import { FailedRead } from './components/NotFound';
import { TestList } from './components/TestList';
import { runTitle, useRun, useRunRows } from './data';
import './runs.css';

export function SpecPage() {
  const { projectId = '', runId = '', specId = '' } = useParams();
  const run = useRun(projectId, runId);
  const rows = useRunRows(projectId, runId, run.data?.data.status === 'running');
  if (run.error || rows.error) return <Page title="Spec file">{<FailedRead error={run.error ?? rows.error} what="Run" />}</Page>;
  if (run.isPending || rows.isPending) return <Loading label="Loading the spec file…" />;
  const index = rows.data.data.specs.findIndex((s) => s.id === specId);
  const spec = rows.data.data.specs[index];
  const back = <Link to={href(PAGES.run, { projectId, runId })}>{runTitle(run.data.data)}</Link>;
  if (!spec)
    return (
      <Page title="Spec file">
        <div className="callout" role="alert">
          <p>
            <strong>Spec file not found.</strong> This run has no such spec file. Back to {back}.
          </p>
        </div>
      </Page>
    );
  const tests = rows.data.data.rows.filter((r) => r.spec === index);
  return (
    <Page title={spec.file} subtitle={<>Spec file in {back}</>}>
      <dl className="grid run-stats">
        {(
          [
            ['Tests', formatCount(spec.total)],
            ['Passed', formatCount(spec.passed)],
            ['Failed', formatCount(spec.failed)],
            ['Flaky', formatCount(spec.flaky)],
            ['Skipped', formatCount(spec.skipped)],
            ['Duration', formatDuration(spec.duration)],
          ] as const
        ).map(([label, value]) => (
          <div key={label} className="card stat">
            <dt className="stat-label">{label}</dt>
            <dd className="stat-value">{value}</dd>
          </div>
        ))}
      </dl>
      <h2>Tests</h2>
      <TestList
        projectId={projectId}
        runId={runId}
        rows={tests}
        specs={rows.data.data.specs}
        caption="Tests of the spec file"
        showFile={false}
      />
    </Page>
  );
}
