import type { RouteObject } from 'react-router';
import { Unbuilt } from '../../ui/Unbuilt';
import { reportsPaths } from './paths';

/** The pages of this feature; each page's module loads with it (code splitting keeps the first load small). */
export const reportsRoutes: RouteObject[] = [
  { path: reportsPaths.reports, element: <Unbuilt title="Reports" /> },
  { path: reportsPaths.report, element: <Unbuilt title="Report" /> },
];
