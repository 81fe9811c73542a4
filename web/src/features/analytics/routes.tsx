import type { RouteObject } from 'react-router';
import { Unbuilt } from '../../ui/Unbuilt';
import { analyticsPaths } from './paths';

/** The pages of this feature; each page's module loads with it (code splitting keeps the first load small). */
export const analyticsRoutes: RouteObject[] = [
  { path: analyticsPaths.analytics, element: <Unbuilt title="Analytics" /> },
  { path: analyticsPaths.performance, element: <Unbuilt title="Performance" /> },
  { path: analyticsPaths.testCaseExplorer, element: <Unbuilt title="Test case explorer" /> },
  { path: analyticsPaths.specs, element: <Unbuilt title="Spec health" /> },
];
