import type { RouteObject } from 'react-router';
import { Unbuilt } from '../../ui/Unbuilt';
import { manualPaths } from './paths';

/** The pages of this feature; each page's module loads with it (code splitting keeps the first load small). */
export const manualRoutes: RouteObject[] = [
  { path: manualPaths.manualTestCases, element: <Unbuilt title="Test cases" /> },
  { path: manualPaths.newManualTestCase, element: <Unbuilt title="New test case" /> },
  { path: manualPaths.manualTestCase, element: <Unbuilt title="Test case" /> },
  { path: manualPaths.releases, element: <Unbuilt title="Releases" /> },
  { path: manualPaths.release, element: <Unbuilt title="Release" /> },
  { path: manualPaths.sessions, element: <Unbuilt title="Exploratory sessions" /> },
  { path: manualPaths.session, element: <Unbuilt title="Exploratory session" /> },
  { path: manualPaths.manualRuns, element: <Unbuilt title="Manual runs" /> },
  { path: manualPaths.manualRun, element: <Unbuilt title="Manual run" /> },
];
