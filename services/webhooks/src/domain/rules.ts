/** The subscription rules of spec §2.6, §4.3 and §6 that the service enforces whoever calls it. */
import { validation } from '@assay/errors';

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 200;
/** Spec §6: 5 consecutive failed attempts disable a subscription. */
export const DISABLE_AFTER_CONSECUTIVE_FAILURES = 5;

export const EVENTS = ['RUN_STARTED', 'RUN_FINISHED'] as const;
export type EventType = (typeof EVENTS)[number];
/** Both spellings are accepted on input (spec §9.2); reads return the upper-case form. */
const EVENT_ALIASES: Record<string, EventType> = {
  RUN_STARTED: 'RUN_STARTED',
  RUN_FINISHED: 'RUN_FINISHED',
  'run.started': 'RUN_STARTED',
  'run.finished': 'RUN_FINISHED',
};
export const EVENT_NAMES: Record<EventType, string> = { RUN_STARTED: 'run.started', RUN_FINISHED: 'run.finished' };

export const OUTCOMES = ['any', 'failed', 'passed'] as const;
/** `api` (default) or one of two automation tools that create subscriptions for their users. */
export const SOURCES = ['api', 'zapier', 'n8n'] as const;
export const DELIVERY_STATUSES = ['pending', 'success', 'failed'] as const;

/** Normalized, de-duplicated, in canonical order. */
export function normalizeEvents(input: readonly string[]): EventType[] {
  if (input.length === 0)
    throw validation('events needs at least one event', [{ path: 'body.events', message: 'must have at least 1 item' }]);
  const out = new Set<EventType>();
  input.forEach((e, i) => {
    const normalized = EVENT_ALIASES[e];
    if (!normalized) {
      throw validation(`unknown event "${e}"`, [
        { path: `body.events.${i}`, message: 'must be one of RUN_STARTED, RUN_FINISHED, run.started, run.finished' },
      ]);
    }
    out.add(normalized);
  });
  return EVENTS.filter((e) => out.has(e));
}

export function checkOneOf<T extends string>(value: string, allowed: readonly T[], path: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw validation(`${path} must be one of ${allowed.join(', ')}`, [{ path, message: `must be one of ${allowed.join(', ')}` }]);
  }
  return value as T;
}

export function checkDescription(description: string): string {
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    throw validation(`description must be at most ${MAX_DESCRIPTION_LENGTH} characters`, [
      { path: 'body.description', message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` },
    ]);
  }
  return description;
}

/** An absolute http(s) URL of at most 2048 characters, without credentials. Returns it unchanged. */
export function checkUrlShape(url: string): URL {
  const bad = (message: string) => validation(`url ${message}`, [{ path: 'body.url', message }]);
  if (url.length === 0 || url.length > MAX_URL_LENGTH) throw bad(`must be 1-${MAX_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad('must be an absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw bad('must use http or https');
  if (parsed.username || parsed.password) throw bad('must not carry credentials');
  if (!parsed.hostname) throw bad('must name a host');
  return parsed;
}
