import type { RouteObject } from 'react-router';
import { Unbuilt } from '../../ui/Unbuilt';
import { settingsPaths } from './paths';

/** The pages of this feature; each page's module loads with it (code splitting keeps the first load small). */
export const settingsRoutes: RouteObject[] = [{ path: settingsPaths.tokens, element: <Unbuilt title="Personal access tokens" /> }];
