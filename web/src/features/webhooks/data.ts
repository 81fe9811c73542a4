/** The webhooks family's paths and value sets, as the API names them. */
export const WEBHOOKS = '/api/v1/public/{projectId}/webhooks';
export const WEBHOOK = '/api/v1/public/{projectId}/webhooks/{webhookId}';
export const EVENTS = ['RUN_STARTED', 'RUN_FINISHED'] as const;
export const OUTCOMES = ['any', 'failed', 'passed'] as const;
