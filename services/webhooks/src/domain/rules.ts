/**
 * The subscription rules of spec §2.6, §4.3 and §6 that the service enforces whoever calls it. The value sets
 * and limits are the contract's (@assay/contracts/webhooks), the same the gateway validates against.
 */
import { validation } from '@assay/errors';
import type { EnumMap } from '@assay/contracts/common/enums';
import { MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH, WEBHOOK_EVENTS, type WebhookEventName } from '@assay/contracts/webhooks/values';
import { webhookEvent } from '@assay/contracts/webhooks/webhooks';
import type { WebhookEvent } from '@assay/proto/assay/webhooks/v1/webhooks_pb';
import { characterCount } from '@assay/contracts/common/text';

/** The events of a request, de-duplicated, in canonical order; 400 when there are none or one is unknown. */
export function eventsOf(input: readonly WebhookEvent[]): WebhookEventName[] {
  if (input.length === 0)
    throw validation('events needs at least one event', [{ path: 'body.events', message: 'must have at least 1 item' }]);
  const out = new Set<WebhookEventName>();
  input.forEach((e, i) => out.add(enumValue(webhookEvent, e, `body.events.${i}`)));
  return WEBHOOK_EVENTS.filter((e) => out.has(e));
}

/** The JSON name of a proto enum value; 400 naming `path` when it is UNSPECIFIED or unknown. */
export function enumValue<S extends string, E extends number>(map: EnumMap<S, E>, value: E, path: string): S {
  try {
    if (value !== 0) return map.fromProto(value);
  } catch {
    // falls through to the validation error
  }
  throw validation(`${path} must be one of ${map.names.join(', ')}`, [{ path, message: `must be one of ${map.names.join(', ')}` }]);
}

export function checkDescription(description: string): string {
  if (characterCount(description) > MAX_DESCRIPTION_LENGTH) {
    throw validation(`description must be at most ${MAX_DESCRIPTION_LENGTH} characters`, [
      { path: 'body.description', message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` },
    ]);
  }
  return description;
}

/** An absolute http(s) URL of at most 2048 characters, without credentials. */
export function checkUrlShape(url: string): URL {
  const bad = (message: string) => validation(`url ${message}`, [{ path: 'body.url', message }]);
  if (url.length === 0 || characterCount(url) > MAX_URL_LENGTH) throw bad(`must be 1-${MAX_URL_LENGTH} characters`);
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
