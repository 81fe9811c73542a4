import type { RouteObject } from 'react-router';
import { settingsPaths } from './paths';

/** The pages of this feature, each loaded when first opened (`lazy`): the first load stays small. */
export const settingsRoutes: RouteObject[] = [
  { path: settingsPaths.tokens, lazy: async () => ({ Component: (await import('./TokensPage')).TokensPage }) },
];
