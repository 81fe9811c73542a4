/**
 * `/projects/:projectId/reports/:reportId` — one PDF report: its window and filters, its status (asked again every
 * two seconds while pending), the download when it is ready, the reason when it failed, and until when it is kept.
 */
import { Link, useParams } from 'react-router';
import { $api, isNotFound } from '../../api/client';
import { href, PAGES } from '../../app/paths';
import { Page } from '../../ui/Page';
import { StatusBadge } from '../../ui/StatusBadge';
import { formatDateTime } from '../../ui/format';
import { ErrorView, Loading } from '../../ui/states';

export function ReportPage() {
  const { projectId = '', reportId = '' } = useParams();
  const report = $api.useQuery(
    'get',
    '/api/v1/public/{projectId}/reports/{reportId}',
    { params: { path: { projectId, reportId } } },
    { refetchInterval: (q) => (q.state.data?.data.status === 'pending' ? 2000 : false) },
  );
  if (report.isPending) return <Loading label="Loading the report…" />;
  if (report.error)
    return (
      <Page title="Report">
        {isNotFound(report.error) ? (
          <div className="callout" role="alert">
            <p>
              <strong>Report not found.</strong> It does not exist in this project, or it has expired.{' '}
              <Link to={href(PAGES.reports, { projectId })}>Generate a report</Link>
            </p>
          </div>
        ) : (
          <ErrorView error={report.error} />
        )}
      </Page>
    );
  const r = report.data.data;
  const filters = [
    r.filters.branch && `branch ${r.filters.branch}`,
    r.filters.environment && `environment ${r.filters.environment}`,
    r.filters.tags.length > 0 && `tags ${r.filters.tags.join(', ')}`,
  ].filter(Boolean);
  return (
    <Page title={`Report: last ${r.period.days} days`} subtitle={<StatusBadge status={r.status} />}>
      <ul className="facts" aria-label="Report">
        <li>
          Period {r.period.from} to {r.period.until}
        </li>
        <li>{filters.length ? `Only ${filters.join('; ')}` : 'All branches, environments and tags'}</li>
        <li>Requested {formatDateTime(r.createdAt)}</li>
        <li>Kept until {formatDateTime(r.expiresAt)}</li>
      </ul>
      <div role="status" aria-live="polite">
        {r.status === 'pending' ? (
          <p>Generating… this page updates by itself.</p>
        ) : r.status === 'ready' ? (
          <p>
            <a
              className="button button-primary"
              href={`/api/v1/public/${encodeURIComponent(projectId)}/reports/${encodeURIComponent(reportId)}/download`}
              download={r.fileName}
            >
              Download {r.fileName}
            </a>{' '}
            <span className="muted">({Math.max(1, Math.round(r.sizeBytes / 1024))} KiB)</span>
          </p>
        ) : (
          <p className="callout callout-error">
            <strong>The report could not be made.</strong> {r.failureReason ?? ''}
          </p>
        )}
      </div>
      <p>
        <Link to={href(PAGES.reports, { projectId })}>Generate another report</Link>
      </p>
    </Page>
  );
}
