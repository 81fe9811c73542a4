import type { RouteObject } from 'react-router';
import { projectsPaths } from './paths';

/**
 * The pages of this feature. Each page's module loads when it is first opened (`lazy`): the first load stays
 * small (bench/ checks its budget) whatever the other pages import.
 */
export const projectsRoutes: RouteObject[] = [
  { path: projectsPaths.projects, lazy: async () => ({ Component: (await import('./ProjectsPage')).ProjectsPage }) },
  { path: projectsPaths.dashboard, lazy: async () => ({ Component: (await import('./DashboardPage')).DashboardPage }) },
];
