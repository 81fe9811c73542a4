import type { RouteObject } from 'react-router';
import { prefetchRun } from './data';
import { runsPaths } from './paths';

/** The pages of this feature, each loaded when first opened (`lazy`): the first load stays small. */
export const runsRoutes: RouteObject[] = [
  { path: runsPaths.runs, lazy: async () => ({ Component: (await import('./RunsPage')).RunsPage }) },
  { path: runsPaths.run, loader: prefetchRun, lazy: async () => ({ Component: (await import('./RunPage')).RunPage }) },
  { path: runsPaths.spec, loader: prefetchRun, lazy: async () => ({ Component: (await import('./SpecPage')).SpecPage }) },
  { path: runsPaths.testCase, lazy: async () => ({ Component: (await import('./TestCasePage')).TestCasePage }) },
  { path: runsPaths.test, lazy: async () => ({ Component: (await import('./TestHistoryPage')).TestHistoryPage }) },
];
