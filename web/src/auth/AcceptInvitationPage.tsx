import { useEffect, useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { $api, isErrorEnvelope } from '../api/client';
import { PAGES } from '../app/paths';
import { Page } from '../ui/Page';
import { linkRefusal, sentence, useFragmentToken, useSignedIn } from './session';

// The identity service's bounds (MIN_ and MAX_PASSWORD_LENGTH). The longest is checked here, not by `maxLength`: a
// browser cuts a pasted password at `maxLength` without a word, and the manager that pasted it keeps the whole one.
const MIN_LENGTH = 12;
const MAX_LENGTH = 256;

/** The invitation link (`/accept-invitation#token=…`): the user chooses a password and is signed in. */
export function AcceptInvitationPage() {
  const token = useFragmentToken();
  const [refusal, setRefusal] = useState<string>();
  const signedIn = useSignedIn();
  const accept = $api.useMutation('post', '/api/v1/app/invitations/accept', { onSuccess: (res) => signedIn(res.data, '/') });
  // Another link opened in this tab: what was said of the previous one no longer holds.
  const { reset } = accept;
  useEffect(() => reset(), [token, reset]);
  // The link refused, not the password: someone who chose theirs with it already only needs to sign in.
  const linkRefused =
    accept.error !== null && !(isErrorEnvelope(accept.error) && (accept.error.error.details ?? []).some((d) => d.path === 'body.password'));
  const password = useId();
  const confirm = useId();
  const hint = useId();

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const chosen = String(form.get('password') ?? '');
    // Characters as the API counts them: an emoji is one (`length` counts it as two).
    const length = Array.from(chosen).length;
    if (length > MAX_LENGTH) {
      return setRefusal(`A password is at most ${MAX_LENGTH} characters; this one has ${length}.`);
    }
    if (chosen !== String(form.get('confirm') ?? '')) return setRefusal('The two passwords differ.');
    setRefusal(undefined);
    if (token) accept.mutate({ body: { token, password: chosen } });
  }

  return (
    <main className="auth-screen" id="main">
      <Page title="Choose your password">
        {!token ? (
          <p className="callout callout-error" role="alert">
            This link is incomplete. Open the whole invitation link, or <Link to={PAGES.login}>sign in</Link>.
          </p>
        ) : (
          <form className="form auth-form" onSubmit={submit}>
            <label htmlFor={password}>New password</label>
            <input
              id={password}
              name="password"
              type="password"
              autoComplete="new-password"
              minLength={MIN_LENGTH}
              required
              aria-describedby={hint}
            />
            <p id={hint} className="muted">
              {MIN_LENGTH} to {MAX_LENGTH} characters.
            </p>
            <label htmlFor={confirm}>Confirm password</label>
            <input id={confirm} name="confirm" type="password" autoComplete="new-password" minLength={MIN_LENGTH} required />
            {refusal || accept.error ? (
              <p className="callout callout-error" role="alert">
                {refusal ? (
                  refusal
                ) : linkRefused ? (
                  <>
                    {sentence(linkRefusal(accept.error, 'invitation link'))} If you chose your password with it already,{' '}
                    <Link to={PAGES.login}>sign in</Link>.
                  </>
                ) : (
                  linkRefusal(accept.error, 'invitation link')
                )}
              </p>
            ) : null}
            <button type="submit" className="button button-primary" disabled={accept.isPending}>
              Set password and sign in
            </button>
          </form>
        )}
      </Page>
    </main>
  );
}
