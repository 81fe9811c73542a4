import type { RouteObject } from 'react-router';
import { Unbuilt } from '../../ui/Unbuilt';
import { webhooksPaths } from './paths';

/** The pages of this feature; each page's module loads with it (code splitting keeps the first load small). */
export const webhooksRoutes: RouteObject[] = [
  { path: webhooksPaths.webhooks, element: <Unbuilt title="Webhooks" /> },
  { path: webhooksPaths.webhook, element: <Unbuilt title="Webhook" /> },
];
