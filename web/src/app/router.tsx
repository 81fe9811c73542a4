/**
 * The route table: the signed-out pages, then every signed-in page inside the Shell (each feature's routes
 * come from its own folder), then the not-found page for any other path.
 */
import { createBrowserRouter } from 'react-router';
import { AcceptInvitationPage } from '../auth/AcceptInvitationPage';
import { LoginPage } from '../auth/LoginPage';
import { SignInLinkPage } from '../auth/SignInLinkPage';
import { analyticsRoutes } from '../features/analytics/routes';
import { manualRoutes } from '../features/manual/routes';
import { projectsRoutes } from '../features/projects/routes';
import { reportsRoutes } from '../features/reports/routes';
import { runsRoutes } from '../features/runs/routes';
import { settingsRoutes } from '../features/settings/routes';
import { webhooksRoutes } from '../features/webhooks/routes';
import { NotFoundPage } from './NotFoundPage';
import { PAGES } from './paths';
import { RouteError } from './RouteError';
import { Shell } from './Shell';
import { Loading } from '../ui/states';

export const router = createBrowserRouter([
  { path: PAGES.login, Component: LoginPage },
  { path: PAGES.acceptInvitation, Component: AcceptInvitationPage },
  { path: PAGES.signIn, Component: SignInLinkPage },
  {
    Component: Shell,
    children: [
      {
        ErrorBoundary: RouteError,
        // Opening the app on a page: the header and navigation show while the page's own code loads (its route is lazy).
        HydrateFallback: () => <Loading />,
        children: [
          ...projectsRoutes,
          ...runsRoutes,
          ...manualRoutes,
          ...analyticsRoutes,
          ...webhooksRoutes,
          ...reportsRoutes,
          ...settingsRoutes,
        ],
      },
    ],
  },
  { path: '*', Component: NotFoundPage },
]);
