import { useId, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { $api, errorMessage, isErrorEnvelope } from '../api/client';
import { Page } from '../ui/Page';
import { safeNext, useSignedIn } from './session';

/**
 * An e-mail or password the API refuses to look up (longer than any account's: a password of 300 characters) is
 * as wrong as one that does not match, and is said the same way, never in the validator's words.
 */
function loginRefusal(error: unknown): string {
  if (isErrorEnvelope(error) && error.error.code === 'VALIDATION_ERROR') return 'Wrong e-mail or password';
  return errorMessage(error);
}

export function LoginPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const signedIn = useSignedIn();
  const login = $api.useMutation('post', '/api/v1/app/login', { onSuccess: (res) => signedIn(res.data, next) });
  const email = useId();
  const password = useId();

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    login.mutate({ body: { email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') } });
  }

  return (
    <main className="auth-screen" id="main">
      <Page title="Sign in to Assay">
        <form className="form auth-form" onSubmit={submit} noValidate={false}>
          <label htmlFor={email}>Email</label>
          <input id={email} name="email" type="email" autoComplete="username" required />
          <label htmlFor={password}>Password</label>
          <input id={password} name="password" type="password" autoComplete="current-password" required />
          {login.error ? (
            <p className="callout callout-error" role="alert">
              {loginRefusal(login.error)}
            </p>
          ) : null}
          <button type="submit" className="button button-primary" disabled={login.isPending}>
            Sign in
          </button>
        </form>
        <p className="muted">No password yet? Ask an administrator for an invitation link.</p>
      </Page>
    </main>
  );
}
