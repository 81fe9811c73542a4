import type { RouteObject } from 'react-router';
import { manualPaths } from './paths';

/**
 * The pages of this feature, each loaded when first opened (`lazy`): the first load stays small. The new-case
 * and case pages share the editor's module.
 */
export const manualRoutes: RouteObject[] = [
  { path: manualPaths.manualTestCases, lazy: async () => ({ Component: (await import('./TestCasesPage')).TestCasesPage }) },
  { path: manualPaths.newManualTestCase, lazy: async () => ({ Component: (await import('./TestCasePage')).NewTestCasePage }) },
  { path: manualPaths.manualTestCase, lazy: async () => ({ Component: (await import('./TestCasePage')).TestCasePage }) },
  { path: manualPaths.releases, lazy: async () => ({ Component: (await import('./ReleasesPage')).ReleasesPage }) },
  { path: manualPaths.release, lazy: async () => ({ Component: (await import('./ReleasePage')).ReleasePage }) },
  { path: manualPaths.sessions, lazy: async () => ({ Component: (await import('./SessionsPage')).SessionsPage }) },
  { path: manualPaths.session, lazy: async () => ({ Component: (await import('./SessionPage')).SessionPage }) },
  { path: manualPaths.manualRuns, lazy: async () => ({ Component: (await import('./ManualRunsPage')).ManualRunsPage }) },
  { path: manualPaths.manualRun, lazy: async () => ({ Component: (await import('./ManualRunPage')).ManualRunPage }) },
];
