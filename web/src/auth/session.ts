import { useNavigate } from 'react-router';
import { queryClient } from '../api/client';
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
export function takeFragmentToken(): string | undefined {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? undefined;
  if (token) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return token;
}
