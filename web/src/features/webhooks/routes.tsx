import type { RouteObject } from 'react-router';
import { webhooksPaths } from './paths';

/** The pages of this feature, each loaded when first opened (`lazy`): the first load stays small. */
export const webhooksRoutes: RouteObject[] = [
  { path: webhooksPaths.webhooks, lazy: async () => ({ Component: (await import('./WebhooksPage')).WebhooksPage }) },
  { path: webhooksPaths.webhook, lazy: async () => ({ Component: (await import('./WebhookPage')).WebhookPage }) },
];
