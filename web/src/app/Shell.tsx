/**
 * The frame of every signed-in page: a skip link, the header (project switcher, the user's menu), the project's
 * navigation when a project is open, and the page. Signed out (or once a request says the session ended), the
 * user goes to /login and comes back to the same page afterwards.
 */
import { useEffect, useId } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { $api, isErrorEnvelope, setUnauthenticatedHandler } from '../api/client';
import { useAccount, useProjectAccess } from '../api/account';
import { useReadsWait } from '../api/rate-limit';
import { ErrorView, Loading } from '../ui/states';
import { href, PAGES } from './paths';

export function Shell() {
  const account = useAccount();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const here = location.pathname + location.search;

  useEffect(() => {
    setUnauthenticatedHandler(() => {
      queryClient.clear();
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

/** The project's pages, grouped as a person looks for them. */
function ProjectNav() {
  const { projectId } = useParams();
  const { project } = useProjectAccess(projectId);
  if (!projectId) return null;
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
  return (
    <nav className="project-nav" aria-label="Project">
      <p className="project-name">{project?.name ?? 'Project'}</p>
      {groups.map(([group, links]) => (
        <div key={group} className="nav-group">
          <p className="nav-group-title">{group}</p>
          <ul>
            {links.map(([label, path]) => (
              <li key={path}>
                <NavLink to={path} end={label === 'Dashboard' || label === 'Summary'}>
                  {label}
                </NavLink>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}
