import type { RouteObject } from 'react-router';
import { analyticsPaths } from './paths';

/** The pages of this feature, each loaded when first opened (`lazy`): charts stay out of the first load. */
export const analyticsRoutes: RouteObject[] = [
  { path: analyticsPaths.analytics, lazy: async () => ({ Component: (await import('./SummaryPage')).SummaryPage }) },
  { path: analyticsPaths.performance, lazy: async () => ({ Component: (await import('./PerformancePage')).PerformancePage }) },
  { path: analyticsPaths.testCaseExplorer, lazy: async () => ({ Component: (await import('./ExplorerPage')).ExplorerPage }) },
  { path: analyticsPaths.specs, lazy: async () => ({ Component: (await import('./SpecsPage')).SpecsPage }) },
];
