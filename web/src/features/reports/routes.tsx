import type { RouteObject } from 'react-router';
import { reportsPaths } from './paths';

/** The pages of this feature, each loaded when first opened (`lazy`): the first load stays small. */
export const reportsRoutes: RouteObject[] = [
  { path: reportsPaths.reports, lazy: async () => ({ Component: (await import('./ReportsPage')).ReportsPage }) },
  { path: reportsPaths.report, lazy: async () => ({ Component: (await import('./ReportPage')).ReportPage }) },
];
