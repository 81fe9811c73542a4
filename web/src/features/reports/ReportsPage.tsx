/**
 * `/projects/:projectId/reports` — generate a PDF report of the project: a window of 7 or 30 days (the API takes 1
 * to 30: no longer window is offered), optionally one branch, one environment and tags. The report is made in the
 * background; its page shows the status and the download when it is ready. PDF reports are limited per user: a
 * request the limit refuses shows the API's message and counts down to when the API says to try again
 * (`Retry-After`).
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import { serverDelay } from '@assay/client';
import type { Middleware } from 'openapi-fetch';
import { PROJECT_NOT_FOUND, useProjectAccess } from '../../api/account';
import { $api, isRateLimited } from '../../api/client';
import { href, PAGES } from '../../app/paths';
import { FormError } from '../../ui/FormError';
import { Page } from '../../ui/Page';
import { ErrorView } from '../../ui/states';

export function ReportsPage() {
  const { projectId = '' } = useParams();
  const navigate = useNavigate();
  const { missing } = useProjectAccess(projectId);
  const create = $api.useMutation('post', '/api/v1/public/{projectId}/reports');
  // A request refused by the limit: when the API says the next one is allowed (`at`), and the clock (`now`), ticking
  // each second until then.
  const [retry, setRetry] = useState<{ at: number; now: number }>();
  useEffect(() => {
    if (!retry || retry.now >= retry.at) return;
    const timer = setTimeout(() => setRetry({ ...retry, now: Date.now() }), 1000);
    return () => clearTimeout(timer);
  }, [retry]);
  const retrySeconds = retry ? Math.ceil(Math.max(0, retry.at - retry.now) / 1000) : 0;
  const noteRetry: Middleware = {
    onResponse({ response }) {
      const now = Date.now();
      if (response.status === 429) setRetry({ at: now + (serverDelay(response) ?? 60_000), now });
      return undefined;
    },
  };
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setRetry(undefined);
    const f = new FormData(e.currentTarget);
    const text = (k: string) => String(f.get(k) ?? '').trim();
    // Each tag once: the API counts the list it is sent against its 20 tags, repeats included.
    const tags = [
      ...new Set(
        text('tags')
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      ),
    ];
    create.mutate(
      {
        params: { path: { projectId } },
        body: {
          days: Number(f.get('days')),
          ...(text('branch') ? { branch: text('branch') } : {}),
          ...(text('environment') ? { environment: text('environment') } : {}),
          ...(tags.length ? { tags } : {}),
        },
        middleware: [noteRetry],
      },
      { onSuccess: (res) => void navigate(href(PAGES.report, { projectId, reportId: res.data.reportId })) },
    );
  };
  if (missing)
    return (
      <Page title="Reports">
        <ErrorView error={PROJECT_NOT_FOUND} />
      </Page>
    );
  return (
    <Page title="Reports" subtitle="A PDF of the project's results over a window, to share or archive">
      <form className="card form" onSubmit={submit} aria-labelledby="new-report-title">
        <h2 id="new-report-title">New PDF report</h2>
        <label>
          Window
          <select name="days" defaultValue={30}>
            <option value={7}>Last 7 days</option>
            <option value={30}>Last 30 days</option>
          </select>
        </label>
        <label>
          Branch (optional)
          <input name="branch" />
        </label>
        <label>
          Environment (optional)
          <input name="environment" />
        </label>
        <label>
          Tags (optional, comma-separated)
          <input name="tags" />
        </label>
        <FormError error={create.error} title="Not generated" />
        {retry && isRateLimited(create.error) ? (
          <p>{retrySeconds > 0 ? `Try again in ${retrySeconds} s.` : 'You can try again now.'}</p>
        ) : null}
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          Generate report
        </button>
      </form>
    </Page>
  );
}
