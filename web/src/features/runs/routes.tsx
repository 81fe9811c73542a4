import type { RouteObject } from 'react-router';
import { Unbuilt } from '../../ui/Unbuilt';
import { runsPaths } from './paths';

/** The pages of this feature; each page's module loads with it (code splitting keeps the first load small). */
export const runsRoutes: RouteObject[] = [
  { path: runsPaths.runs, element: <Unbuilt title="Runs" /> },
  { path: runsPaths.run, element: <Unbuilt title="Run" /> },
  { path: runsPaths.spec, element: <Unbuilt title="Spec file" /> },
  { path: runsPaths.testCase, element: <Unbuilt title="Test result" /> },
  { path: runsPaths.test, element: <Unbuilt title="Test history" /> },
];
