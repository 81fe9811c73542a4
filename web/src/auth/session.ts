import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage, isErrorEnvelope, queryClient } from '../api/client';
import type { Account } from '../api/account';
import { href, PAGES } from '../app/paths';

/** Where to go after signing in: `next` if it is a path of this app (never another site), else home. */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

/** After a sign-in: forget whatever an earlier user's session cached, keep the new account, go on. */
export function useSignedIn() {
  const navigate = useNavigate();
  return (account: Account, next: string) => {
    queryClient.clear();
    queryClient.setQueryData(['get', '/api/v1/app/me', {}], { success: true, data: account });
    // A user with exactly one project lands on its runs (the first thing a link from `make up` should show).
    const only = account.projects.length === 1 ? account.projects[0] : undefined;
    navigate(next === '/' && only ? href(PAGES.runs, { projectId: only.id }) : next, { replace: true });
  };
}

/** Reads `token` from the URL fragment (links carry it there: it never reaches a server log) and clears it. */
function takeFragmentToken(): string | undefined {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? undefined;
  if (token) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return token;
}

/**
 * The link's token, read from the fragment when the page opens, and again when another link is opened in the same
 * tab: one that differs from the address only after `#` does not load the page again (the old token stayed in use).
 */
export function useFragmentToken(): string | undefined {
  const [token, setToken] = useState(takeFragmentToken);
  useEffect(() => {
    const read = () => {
      const next = takeFragmentToken();
      if (next) setToken(next);
    };
    window.addEventListener('hashchange', read);
    return () => window.removeEventListener('hashchange', read);
  }, []);
  return token;
}

/** The text with a final full stop unless it has one (the API's messages end without). */
export const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * Why a link's token was refused, in a person's words: a token the API finds malformed (a link garbled on its way,
 * e.g. longer than any token) is a damaged link, not the validator's "body.token: must be at most 128 characters".
 */
export function linkRefusal(error: unknown, link: 'sign-in link' | 'invitation link'): string {
  const malformed =
    isErrorEnvelope(error) && error.error.code === 'VALIDATION_ERROR' && (error.error.details ?? []).some((d) => d.path === 'body.token');
  return malformed ? `This ${link} is damaged; open it again exactly as you received it, or ask for a new one` : errorMessage(error);
}
