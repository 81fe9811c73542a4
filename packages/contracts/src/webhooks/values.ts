/**
 * The webhooks domain's closed value sets and limits (spec §2.6, §4.3, §6), written once: the gateway's schemas,
 * the webhooks service's checks and its tables use these, and the proto enums map onto them
 * (./webhooks.ts).
 */
export const WEBHOOK_EVENTS = ['RUN_STARTED', 'RUN_FINISHED'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** The dotted spellings a subscription may also use (spec §9.2); reads return the upper-case form. */
export const WEBHOOK_EVENT_ALIASES = { 'run.started': 'RUN_STARTED', 'run.finished': 'RUN_FINISHED' } as const satisfies Record<
  string,
  WebhookEventName
>;
/** The request headers of every delivery (spec §6); HTTP header names are case-insensitive. */
export const WEBHOOK_HEADERS = {
  signature: 'X-Service-Signature',
  event: 'X-Service-Event',
  delivery: 'X-Service-Delivery',
} as const;

/** The `eventName` of a payload. */
export const WEBHOOK_EVENT_NAMES: Record<WebhookEventName, string> = { RUN_STARTED: 'run.started', RUN_FINISHED: 'run.finished' };

export const OUTCOMES = ['any', 'failed', 'passed'] as const;
export type OutcomeName = (typeof OUTCOMES)[number];

/** `api` (default) or one of two automation tools that create subscriptions for their users. */
export const SOURCES = ['api', 'zapier', 'n8n'] as const;
export type SourceName = (typeof SOURCES)[number];

export const DELIVERY_STATUSES = ['pending', 'success', 'failed'] as const;
export type DeliveryStatusName = (typeof DELIVERY_STATUSES)[number];

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 200;
/** Spec §6: 5 consecutive failed attempts disable a subscription. */
export const DISABLE_AFTER_CONSECUTIVE_FAILURES = 5;
/**
 * Subscriptions per project: one run event fans out to at most this many POSTs (and one project cannot fill the
 * dispatcher for everyone else). A create beyond it is 409 CONFLICT.
 */
export const MAX_SUBSCRIPTIONS_PER_PROJECT = 50;
