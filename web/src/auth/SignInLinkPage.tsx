import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { $api } from '../api/client';
import { PAGES } from '../app/paths';
import { Page } from '../ui/Page';
import { Loading } from '../ui/states';
import { linkRefusal, sentence, useFragmentToken, useSignedIn } from './session';

/** A one-time sign-in link (`/sign-in#token=…`, printed by `make up` and `user:sign-in-link`): used at once. */
export function SignInLinkPage() {
  const token = useFragmentToken();
  const signedIn = useSignedIn();
  const use = $api.useMutation('post', '/api/v1/app/sign-in-links/use', { onSuccess: (res) => signedIn(res.data, '/') });
  const sent = useRef<string>(undefined);
  useEffect(() => {
    // Once per link (React runs effects twice in development; the link is single-use).
    if (token && sent.current !== token) {
      sent.current = token;
      use.mutate({ body: { token } });
    }
  }, [token, use]);

  return (
    <main className="auth-screen" id="main">
      <Page title="Signing you in">
        {!token || use.error ? (
          <p className="callout callout-error" role="alert">
            {token ? sentence(linkRefusal(use.error, 'sign-in link')) : 'This link is incomplete.'}{' '}
            <Link to={PAGES.login}>Sign in with your password</Link>.
          </p>
        ) : (
          <Loading label="Signing you in…" />
        )}
      </Page>
    </main>
  );
}
