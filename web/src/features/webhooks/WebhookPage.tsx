/**
 * `/projects/:projectId/webhooks/:webhookId` — one subscription: its settings, its state (a subscription disabled
 * after failing deliveries says why; owners and admins re-enable it, which also clears the failure count), its
 * delivery history (status, attempts, the receiver's answer, the next retry), filtered by status and paged in the
 * URL; owners and admins delete it after a confirmation.
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { $api, isNotFound } from '../../api/client';
import { keepSameList } from '../../api/lists';
import { useProjectAccess } from '../../api/account';
import { href, PAGES } from '../../app/paths';
import { FormError } from '../../ui/FormError';
import { Page } from '../../ui/Page';
import { pageNumber, PagerNav } from '../../ui/Pagination';
import { StatusBadge } from '../../ui/StatusBadge';
import { formatDateTime } from '../../ui/format';
import { oneOf, PAGE_NUMBER, useSearchState } from '../../ui/search-state';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { WEBHOOK, WEBHOOKS } from './data';

const STATUSES = ['pending', 'success', 'failed'] as const;

export function WebhookPage() {
  const { projectId = '', webhookId = '' } = useParams();
  const { canAdminWebhooks } = useProjectAccess(projectId);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [q, set] = useSearchState(['status', 'page'] as const, { status: oneOf(STATUSES), page: PAGE_NUMBER });
  const status = STATUSES.find((s) => s === q.status);
  const page = pageNumber(q.page);
  const path = { projectId, webhookId };
  const webhook = $api.useQuery('get', WEBHOOK, { params: { path } });
  const deliveries = $api.useQuery(
    'get',
    '/api/v1/public/{projectId}/webhooks/{webhookId}/deliveries',
    { params: { path, query: { page, limit: 25, status } } },
    // This hook stays when the address names another webhook: keepSameList keeps only this one's deliveries.
    { placeholderData: keepSameList(path) },
  );
  const update = $api.useMutation('patch', WEBHOOK);
  const remove = $api.useMutation('delete', WEBHOOK);
  const [confirming, setConfirming] = useState(false);

  if (webhook.isPending) return <Loading label="Loading the subscription…" />;
  if (webhook.error)
    return (
      <Page title="Webhook">
        {isNotFound(webhook.error) ? (
          <div className="callout" role="alert">
            <p>
              <strong>Webhook not found.</strong> It does not exist in this project, or it was deleted.{' '}
              <Link to={href(PAGES.webhooks, { projectId })}>All webhooks</Link>
            </p>
          </div>
        ) : (
          <ErrorView error={webhook.error} />
        )}
      </Page>
    );
  const w = webhook.data.data;
  return (
    <Page title={w.url} subtitle={<StatusBadge status={w.active ? 'active' : 'disabled'} />}>
      <ul className="facts" aria-label="Subscription">
        <li>Events: {w.events.join(', ')}</li>
        <li>Outcome: {w.conditions.outcome}</li>
        <li>Consecutive failures: {w.consecutiveFailures}</li>
        <li>Created {formatDateTime(w.createdAt)}</li>
        {w.description ? <li>{w.description}</li> : null}
      </ul>
      {!w.active ? (
        <div className="callout" role="status">
          <p>
            <strong>Disabled.</strong> {w.disabledReason ?? 'No deliveries are sent.'}
          </p>
          {canAdminWebhooks ? (
            <button
              type="button"
              className="button button-primary"
              disabled={update.isPending}
              onClick={() =>
                update.mutate(
                  { params: { path }, body: { active: true } },
                  { onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['get', WEBHOOK] }) },
                )
              }
            >
              Re-enable
            </button>
          ) : null}
        </div>
      ) : null}
      <FormError error={update.error ?? remove.error} title="Not done" />
      {canAdminWebhooks ? (
        confirming ? (
          <p role="group" aria-label="Delete this subscription?">
            Delete this subscription? Its deliveries stop at once.{' '}
            <button
              type="button"
              className="button button-danger"
              onClick={() =>
                remove.mutate(
                  { params: { path } },
                  {
                    onSuccess: () => {
                      void queryClient.invalidateQueries({ queryKey: ['get', WEBHOOKS] });
                      void navigate(href(PAGES.webhooks, { projectId }));
                    },
                  },
                )
              }
            >
              Yes, delete
            </button>{' '}
            <button type="button" className="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </p>
        ) : (
          <p>
            <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
              Delete subscription
            </button>
          </p>
        )
      ) : null}

      <h2>Deliveries</h2>
      <div className="filters">
        <label>
          Status
          <select value={status ?? ''} onChange={(e) => set({ status: e.target.value, page: undefined })}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      {deliveries.isPending ? (
        <Loading label="Loading the deliveries…" />
      ) : deliveries.error ? (
        <ErrorView error={deliveries.error} />
      ) : deliveries.data.data.length === 0 ? (
        <Empty>{status ? `No delivery with the status ${status}.` : 'No deliveries yet.'}</Empty>
      ) : (
        <>
          <div className="table-scroll" aria-busy={deliveries.isPlaceholderData || undefined}>
            <table className="table">
              <caption className="visually-hidden">Deliveries</caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Run</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Attempts
                  </th>
                  <th scope="col">Answer</th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {deliveries.data.data.map((d) => (
                  <tr key={d._id}>
                    <td>{d.event}</td>
                    <td>
                      <Link to={href(PAGES.run, { projectId, runId: d.runId })}>Open the run</Link>
                    </td>
                    <td>
                      <StatusBadge status={d.status} />
                    </td>
                    <td className="num">{d.attempt}</td>
                    <td>
                      {d.statusCode !== null ? `HTTP ${d.statusCode}` : ''}
                      {d.responseMs !== null ? ` in ${d.responseMs} ms` : ''}
                      {d.error ? <div className="muted">{d.error}</div> : null}
                    </td>
                    <td>{d.nextAttemptAt ? formatDateTime(d.nextAttemptAt) : '—'}</td>
                    <td>{formatDateTime(d.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <PagerNav label="Delivery pages">
            <button type="button" className="button" disabled={page <= 1} onClick={() => set({ page: page - 1 })}>
              Newer
            </button>
            <button type="button" className="button" disabled={!deliveries.data.pagination.hasMore} onClick={() => set({ page: page + 1 })}>
              Older
            </button>
          </PagerNav>
        </>
      )}
    </Page>
  );
}
