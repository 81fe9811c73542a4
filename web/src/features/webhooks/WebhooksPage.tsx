/**
 * `/projects/:projectId/webhooks` — the project's webhook subscriptions: where each one posts, for which events
 * and outcome, whether it is active (or disabled after failing, and why), its latest delivery. Owners and admins
 * create one (URL, events, outcome, description; the signing secret is shown once, with a copy button) and
 * delete one after a confirmation.
 */
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { $api } from '../../api/client';
import { useProjectAccess } from '../../api/account';
import { href, PAGES } from '../../app/paths';
import { Breakable } from '../../ui/Breakable';
import { CopyButton } from '../../ui/CopyButton';
import { FormError } from '../../ui/FormError';
import { Page } from '../../ui/Page';
import { StatusBadge } from '../../ui/StatusBadge';
import { formatRelative } from '../../ui/format';
import { Empty, ErrorView, Loading } from '../../ui/states';
import { EVENTS, OUTCOMES, WEBHOOKS } from './data';

export function WebhooksPage() {
  const { projectId = '' } = useParams();
  const { canAdminWebhooks } = useProjectAccess(projectId);
  const [created, setCreated] = useState<{ url: string; secret: string } | undefined>();
  const webhooks = $api.useQuery('get', WEBHOOKS, { params: { path: { projectId }, query: { limit: 100 } } });
  return (
    <Page title="Webhooks" subtitle="Signed POSTs to your endpoints when runs start and finish">
      {created ? (
        <div className="callout callout-success" role="status">
          <p>
            <strong>Subscription created</strong> for <span className="mono">{created.url}</span>. Copy its signing secret now: it is shown
            only once.
          </p>
          <p>
            <code className="mono" aria-label="Signing secret">
              {created.secret}
            </code>{' '}
            <CopyButton text={created.secret} label="Copy secret" />{' '}
            <button type="button" className="button button-small" onClick={() => setCreated(undefined)}>
              Done
            </button>
          </p>
        </div>
      ) : null}
      {canAdminWebhooks ? <CreateWebhook projectId={projectId} onCreated={(url, secret) => setCreated({ url, secret })} /> : null}
      <h2>Subscriptions</h2>
      {webhooks.isPending ? (
        <Loading label="Loading the subscriptions…" />
      ) : webhooks.error ? (
        <ErrorView error={webhooks.error} />
      ) : webhooks.data.data.length === 0 ? (
        <Empty>No webhook subscriptions yet.</Empty>
      ) : (
        <div className="table-scroll">
          <table className="table">
            <caption className="visually-hidden">Webhook subscriptions</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Outcome</th>
                <th scope="col">State</th>
                <th scope="col">Last delivery</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data.data.map((w) => (
                <tr key={w._id}>
                  <td className="mono">
                    <Link to={href(PAGES.webhook, { projectId, webhookId: w._id })}>
                      <Breakable text={w.url} />
                    </Link>
                    {w.description ? <div className="muted">{w.description}</div> : null}
                  </td>
                  <td>{w.events.join(', ')}</td>
                  <td>{w.conditions.outcome}</td>
                  <td>
                    <StatusBadge status={w.active ? 'active' : 'disabled'} />
                    {w.disabledReason ? <div className="muted">{w.disabledReason}</div> : null}
                  </td>
                  <td>{w.lastDeliveryAt ? formatRelative(w.lastDeliveryAt) : 'Never'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

function CreateWebhook({ projectId, onCreated }: { projectId: string; onCreated: (url: string, secret: string) => void }) {
  const queryClient = useQueryClient();
  const create = $api.useMutation('post', WEBHOOKS);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const description = String(f.get('description') ?? '').trim();
    create.mutate(
      {
        params: { path: { projectId } },
        body: {
          url: String(f.get('url') ?? '').trim(),
          events: f.getAll('events').map(String) as (typeof EVENTS)[number][],
          conditions: { outcome: String(f.get('outcome')) as (typeof OUTCOMES)[number] },
          ...(description ? { description } : {}),
        },
      },
      {
        onSuccess: (res) => {
          form.reset();
          onCreated(res.data.url, res.data.secret);
          void queryClient.invalidateQueries({ queryKey: ['get', WEBHOOKS] });
        },
      },
    );
  };
  return (
    <form className="card form" onSubmit={submit} aria-labelledby="new-webhook-title">
      <h2 id="new-webhook-title">New subscription</h2>
      <label>
        Endpoint URL
        <input name="url" type="text" inputMode="url" placeholder="https://example.com/hooks/assay" />
      </label>
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map((e) => (
          <label key={e}>
            <input type="checkbox" name="events" value={e} defaultChecked={e === 'RUN_FINISHED'} />{' '}
            {e === 'RUN_STARTED' ? 'Run started' : 'Run finished'}
          </label>
        ))}
      </fieldset>
      <label>
        Only runs that
        <select name="outcome" defaultValue="any">
          <option value="any">end any way</option>
          <option value="failed">fail</option>
          <option value="passed">pass</option>
        </select>
      </label>
      <label>
        Description
        <input name="description" />
      </label>
      <FormError error={create.error} title="Not created" />
      <button type="submit" className="button button-primary" disabled={create.isPending}>
        Create subscription
      </button>
    </form>
  );
}
