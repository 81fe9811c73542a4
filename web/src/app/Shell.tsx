/**
 * The frame of every signed-in page: a skip link, the header (project switcher, the user's menu), the project's
 * navigation when a project is open, and the page. Signed out (or once a request says the session ended), the
 * user goes to /login and comes back to the same page afterwards.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { Link, Navigate, NavLink, Outlet, ScrollRestoration, useLocation, useNavigate, useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { $api, isErrorEnvelope, setUnauthenticatedHandler } from '../api/client';
import { useAccount, useProjectAccess } from '../api/account';
import { useReadsWait } from '../api/rate-limit';
import { ErrorView, Loading } from '../ui/states';
import { href, PAGES } from './paths';
import { useRouteFocus } from './route-focus';

export function Shell() {
  const account = useAccount();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const here = location.pathname + location.search;
  // After a navigation to another page the focus goes to its title (route-focus.ts); here, once, for every page.
  useRouteFocus();

  useEffect(() => {
    setUnauthenticatedHandler(() => {
      queryClient.clear();
      // Signing out forgets the cached answers and the page still shown reads again; on a loaded machine that read's
      // refusal comes once the address is the sign-in page already, with nothing to come back to (it went to
      // `/login?next=/login`: two-tabs.spec failed so in CI).
      if (window.location.pathname === PAGES.login) return;
      navigate(`${PAGES.login}?next=${encodeURIComponent(window.location.pathname + window.location.search)}`, { replace: true });
    });
  }, [navigate, queryClient]);

  // The account is the first read: a refused one waits for the window like any other, and says so.
  if (account.isPending)
    return (
      <main id="main" className="content">
        <ReadsWait />
        <Loading />
      </main>
    );
  if (account.error) {
    if (isErrorEnvelope(account.error) && account.error.error.code === 'UNAUTHORIZED') {
      return <Navigate to={`${PAGES.login}?next=${encodeURIComponent(here)}`} replace />;
    }
    return (
      <main id="main" className="content">
        <ErrorView error={account.error} />
      </main>
    );
  }

  return (
    <div className="app">
      {/* A new page starts at the top; Back and Forward return to where the page was left (per history entry). */}
      <ScrollRestoration />
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Header />
      <div className="app-body">
        <ProjectNav />
        <main id="main" className="content" tabIndex={-1}>
          <ReadsWait />
          <Outlet />
        </main>
      </div>
    </div>
  );
}

/**
 * While the rate limit refuses reads: how long until the pages load again (they ask by themselves then). The
 * countdown is for the eye; a screen reader hears the sentence once, not every second.
 */
function ReadsWait() {
  const { seconds, limit } = useReadsWait();
  return (
    <p className={seconds > 0 ? 'callout callout-warn' : 'visually-hidden'} role="status">
      {seconds > 0 ? (
        <>
          You have used this minute&apos;s {limit ? `${limit} ` : ''}reads of the API. The page loads again{' '}
          <span aria-hidden="true">in {seconds} s</span>
          <span className="visually-hidden">when the minute is over</span>.
        </>
      ) : null}
    </p>
  );
}

function Header() {
  const { data } = useAccount();
  const { projectId } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const switcher = useId();
  const signOut = $api.useMutation('post', '/api/v1/app/logout');
  const signOutEverywhere = $api.useMutation('post', '/api/v1/app/logout-everywhere');
  const account = data?.data;

  const leave = () => {
    queryClient.clear();
    navigate(PAGES.login, { replace: true });
  };

  return (
    <header className="app-header">
      <Link to={PAGES.projects} className="brand">
        <img src="/favicon.svg" alt="" width={24} height={24} /> Assay
      </Link>
      {account && account.projects.length > 0 ? (
        <div className="project-switcher">
          <label htmlFor={switcher} className="visually-hidden">
            Project
          </label>
          <select
            id={switcher}
            value={projectId ?? ''}
            onChange={(e) => e.target.value && navigate(href(PAGES.dashboard, { projectId: e.target.value }))}
          >
            <option value="">Choose a project…</option>
            {account.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <nav className="user-menu" aria-label="Account">
        <span className="muted">{account?.user.name}</span>
        <NavLink to={PAGES.tokens}>Settings</NavLink>
        <button type="button" className="button button-small" onClick={() => signOut.mutate({}, { onSettled: leave })}>
          Sign out
        </button>
        <button type="button" className="button button-small" onClick={() => signOutEverywhere.mutate({}, { onSettled: leave })}>
          Sign out everywhere
        </button>
      </nav>
    </header>
  );
}

/**
 * The project's pages, grouped as a person looks for them. On a phone (styles.css, below 40rem) the groups fold
 * behind a button that names the page shown; it opens them, a followed link or Escape folds them again (the focus
 * on the new page's title after a link, back on the button after Escape). Wider, the button is not shown and the
 * groups always are.
 */
function ProjectNav() {
  const { projectId } = useParams();
  const { project } = useProjectAccess(projectId);
  const location = useLocation();
  const groupsId = useId();
  const toggle = useRef<HTMLButtonElement>(null);
  // Open on the page (history entry) it was opened on: any navigation, a link's or the switcher's or Back, folds it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === location.key;
  const nav = useRef<HTMLElement>(null);
  // Escape folds the open menu; the focus, if it was in the menu (or nowhere), goes back to its button.
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      e.preventDefault();
      const focus = document.activeElement;
      setOpenOn(null);
      if (!focus || focus === document.body || nav.current?.contains(focus)) toggle.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  if (!projectId) return null;
  const close = (refocus: boolean) => {
    setOpenOn(null);
    if (refocus) toggle.current?.focus();
  };
  const to = (pattern: string) => pattern.replace(':projectId', encodeURIComponent(projectId));
  const groups: [string, [string, string][]][] = [
    [
      'Automated',
      [
        ['Dashboard', to(PAGES.dashboard)],
        ['Runs', to(PAGES.runs)],
      ],
    ],
    [
      'Analytics',
      [
        ['Summary', to(PAGES.analytics)],
        ['Performance', to(PAGES.performance)],
        ['Test case explorer', to(PAGES.testCaseExplorer)],
        ['Spec health', to(PAGES.specs)],
      ],
    ],
    [
      'Manual testing',
      [
        ['Test cases', to(PAGES.manualTestCases)],
        ['Releases', to(PAGES.releases)],
        ['Exploratory sessions', to(PAGES.sessions)],
        ['Manual runs', to(PAGES.manualRuns)],
      ],
    ],
    [
      'Project',
      [
        ['Webhooks', to(PAGES.webhooks)],
        ['Reports', to(PAGES.reports)],
      ],
    ],
  ];
  const exact = (label: string) => label === 'Dashboard' || label === 'Summary';
  // The link NavLink marks active (the page itself, or one below it unless `end`), named on the folded button.
  const current = groups
    .flatMap(([, links]) => links)
    .find(([label, path]) => location.pathname === path || (!exact(label) && location.pathname.startsWith(`${path}/`)))?.[0];
  return (
    <nav className={open ? 'project-nav project-nav-open' : 'project-nav'} aria-label="Project" ref={nav}>
      <p className="project-name">{project?.name ?? 'Project'}</p>
      <button
        ref={toggle}
        type="button"
        className="button project-nav-toggle"
        aria-expanded={open}
        aria-controls={groupsId}
        onClick={() => setOpenOn(open ? null : location.key)}
      >
        <svg aria-hidden="true" viewBox="0 0 16 16" width={16} height={16}>
          <path d="M2 4h12M2 8h12M2 12h12" stroke="currentColor" strokeWidth={1.75} strokeLinecap="round" />
        </svg>
        <span>
          Menu
          {current ? (
            <>
              <span aria-hidden="true"> · </span>
              <span className="visually-hidden">, this page: </span>
              <span className="project-nav-current">{current}</span>
            </>
          ) : null}
        </span>
      </button>
      <div id={groupsId} className="project-nav-groups">
        {groups.map(([group, links]) => (
          <div key={group} className="nav-group">
            <p className="nav-group-title">{group}</p>
            <ul>
              {links.map(([label, path]) => (
                <li key={path}>
                  {/* Followed from the open menu (a phone), the menu folds; the focus goes to the new page's title
                      (useRouteFocus), or back to the button when the link is the page already shown. */}
                  <NavLink
                    to={path}
                    end={exact(label)}
                    onClick={() => {
                      if (open) close(location.pathname === path);
                    }}
                  >
                    {label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </div>
    </nav>
  );
}
