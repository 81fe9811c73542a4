/**
 * `/settings/tokens` — the signed-in user's personal access tokens (spec §5.2: "created in the user's settings,
 * shown once"): create one with a name, an expiry of 30, 60, 90 or 180 days and the projects it covers (all of
 * them, or chosen ones); its secret is shown once, with a copy button. The list shows each token's projects,
 * expiry and last use; rotate (a new secret, shown once; the old one stops working at once) and revoke (after a
 * confirmation).
 */
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { $api, type Schemas } from '../../api/client';
import { useAccount } from '../../api/account';
import { CopyButton } from '../../ui/CopyButton';
import { FormError } from '../../ui/FormError';
import { Page } from '../../ui/Page';
import { formatDate, formatRelative } from '../../ui/format';
import { Empty, ErrorView, Loading } from '../../ui/states';

const TOKENS = '/api/v1/app/tokens';
const EXPIRY_DAYS = [30, 60, 90, 180] as const;
type Token = Schemas['AppToken'];

export function TokensPage() {
  const tokens = $api.useQuery('get', TOKENS);
  const [secret, setSecret] = useState<{ name: string; secret: string; rotated: boolean } | undefined>();
  // When the page opened: what counts as expired (a token expiring while the page is open shows it on the next visit).
  const [openedAt] = useState(() => Date.now());
  return (
    <Page title="Personal access tokens" subtitle="Tokens for the API, the CLI and CI, acting as you in the projects they cover">
      {secret ? <SecretOnce {...secret} onDone={() => setSecret(undefined)} /> : null}
      <CreateToken onCreated={(name, s) => setSecret({ name, secret: s, rotated: false })} />
      <h2>Your tokens</h2>
      {tokens.isPending ? (
        <Loading label="Loading your tokens…" />
      ) : tokens.error ? (
        <ErrorView error={tokens.error} />
      ) : tokens.data.data.length === 0 ? (
        <Empty>No tokens yet.</Empty>
      ) : (
        <div className="table-scroll">
          <table className="table">
            <caption className="visually-hidden">Your tokens</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Projects</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.data.map((t) => (
                <TokenRow key={t.id} token={t} now={openedAt} onRotated={(s) => setSecret({ name: t.name, secret: s, rotated: true })} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

/** The secret of a token just created or rotated: shown this once, never again. */
function SecretOnce({ name, secret, rotated, onDone }: { name: string; secret: string; rotated: boolean; onDone: () => void }) {
  return (
    <div className="callout callout-success" role="status">
      <p>
        <strong>
          {rotated ? 'Token rotated' : 'Token created'}: {name}.
        </strong>{' '}
        Copy its secret now: it is shown only once.{rotated ? ' The old secret no longer works.' : ''}
      </p>
      <p className="command-line">
        <code className="mono" aria-label="Token secret">
          {secret}
        </code>{' '}
        <CopyButton text={secret} label="Copy token" />{' '}
        <button type="button" className="button button-small" onClick={onDone}>
          Done
        </button>
      </p>
    </div>
  );
}

function CreateToken({ onCreated }: { onCreated: (name: string, secret: string) => void }) {
  const account = useAccount();
  const queryClient = useQueryClient();
  const create = $api.useMutation('post', TOKENS);
  const [scope, setScope] = useState<'all' | 'some'>('all');
  // "Chosen projects" with none ticked: said before sending, with what to do (the API answers "Projects: must not be
  // empty").
  const [noneChosen, setNoneChosen] = useState(false);
  const projects = account.data?.data.projects ?? [];

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const chosen = f.getAll('project').map(String);
    setNoneChosen(scope === 'some' && chosen.length === 0);
    if (scope === 'some' && chosen.length === 0) return;
    create.mutate(
      {
        body: {
          name: String(f.get('name') ?? ''),
          expiresInDays: Number(f.get('expiresInDays')) as (typeof EXPIRY_DAYS)[number],
          projects: scope === 'all' ? ['*'] : chosen,
        },
      },
      {
        onSuccess: (res) => {
          form.reset();
          setScope('all');
          onCreated(res.data.token.name, res.data.secret);
          void queryClient.invalidateQueries({ queryKey: ['get', TOKENS] });
        },
      },
    );
  };

  return (
    <form className="card form" onSubmit={submit} aria-labelledby="create-token-title">
      <h2 id="create-token-title">New token</h2>
      <label>
        Name
        <input name="name" autoComplete="off" />
      </label>
      <label>
        Expires after
        <select name="expiresInDays" defaultValue={90}>
          {EXPIRY_DAYS.map((d) => (
            <option key={d} value={d}>
              {d} days
            </option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>Projects</legend>
        <label>
          <input type="radio" name="scope" checked={scope === 'all'} onChange={() => setScope('all')} /> All my projects, present and future
        </label>
        <label>
          <input type="radio" name="scope" checked={scope === 'some'} onChange={() => setScope('some')} /> Chosen projects
        </label>
        {scope === 'some' ? (
          <ul className="link-list">
            {projects.map((p) => (
              <li key={p.id}>
                <label>
                  <input type="checkbox" name="project" value={p.id} /> {p.name}
                </label>
              </li>
            ))}
          </ul>
        ) : null}
      </fieldset>
      {noneChosen && scope === 'some' ? (
        <div className="callout callout-error" role="alert">
          <strong>Not created.</strong> Tick at least one project, or choose all of them.
        </div>
      ) : (
        <FormError error={create.error} title="Not created" />
      )}
      <button type="submit" className="button button-primary" disabled={create.isPending}>
        Create token
      </button>
    </form>
  );
}

function TokenRow({ token, now, onRotated }: { token: Token; now: number; onRotated: (secret: string) => void }) {
  const queryClient = useQueryClient();
  const rotate = $api.useMutation('post', '/api/v1/app/tokens/{tokenId}/rotate');
  const revoke = $api.useMutation('delete', '/api/v1/app/tokens/{tokenId}');
  const [confirming, setConfirming] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['get', TOKENS] });
  const params = { params: { path: { tokenId: token.id } } };
  const expired = token.expiresAt !== null && Date.parse(token.expiresAt) <= now;
  const usable = !token.revoked && !expired;
  return (
    <tr>
      <th scope="row">{token.name}</th>
      <td>{token.projects === '*' ? 'All projects' : token.projects.map((p) => p.name).join(', ')}</td>
      <td>{formatDate(token.createdAt)}</td>
      <td>
        {token.revoked
          ? 'Revoked'
          : expired
            ? `Expired ${formatDate(token.expiresAt)}`
            : token.expiresAt
              ? formatDate(token.expiresAt)
              : 'Never'}
      </td>
      <td>{token.lastUsedAt ? formatRelative(token.lastUsedAt) : 'Never'}</td>
      <td>
        {usable ? (
          confirming ? (
            <span role="group" aria-label={`Revoke ${token.name}?`}>
              Revoke it? It stops working at once.{' '}
              <button
                type="button"
                className="button button-small button-danger"
                disabled={revoke.isPending}
                onClick={() => revoke.mutate(params, { onSuccess: () => void refresh() })}
              >
                Yes, revoke
              </button>{' '}
              <button type="button" className="button button-small" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </span>
          ) : (
            <>
              <button
                type="button"
                className="button button-small"
                aria-label={`Rotate ${token.name}`}
                disabled={rotate.isPending}
                onClick={() =>
                  rotate.mutate(params, {
                    onSuccess: (res) => {
                      onRotated(res.data.secret);
                      void refresh();
                    },
                  })
                }
              >
                Rotate
              </button>{' '}
              <button type="button" className="button button-small" aria-label={`Revoke ${token.name}`} onClick={() => setConfirming(true)}>
                Revoke
              </button>
            </>
          )
        ) : (
          <span className="muted">—</span>
        )}
        <FormError error={rotate.error ?? revoke.error} title="Not done" />
      </td>
    </tr>
  );
}
