/** Webhook subscriptions and their delivery history. */
export const webhooksPaths = {
  webhooks: '/projects/:projectId/webhooks',
  webhook: '/projects/:projectId/webhooks/:webhookId',
} as const;
