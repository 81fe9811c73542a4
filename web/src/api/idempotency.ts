/**
 * `Idempotency-Key` on the web app's POSTs (spec §4.4): a person who sends a form again after "The server cannot be
 * reached" (the answer was lost on its way back: a dropped connection, a proxy's timeout, a laptop put to sleep) or
 * while the first send still runs must not create the thing twice. So a POST's key is kept while its answer leaves
 * it open whether it was carried out (no answer, a 5xx, 409 IDEMPOTENCY_KEY_IN_PROGRESS), and sent again with the
 * same request: the gateway then replays the first answer instead of creating a second resource. Any other answer
 * ends the key, so the same form sent on purpose after a success creates again. The same request means the same
 * method, address and body, so the key never meets a different body (422 IDEMPOTENCY_KEY_REUSE). Keys live in this
 * tab's memory only.
 *
 * The gateway does not store a 5xx: a service that committed and then died before answering leaves nothing to
 * replay (the README's "Left" list).
 */
import type { Middleware } from 'openapi-fetch';
import { IDEMPOTENCY_HEADER } from '@assay/client';

/**
 * The app's own routes take no key but the token create (the gateway's route config): the others sign in, with a
 * password or a link's secret in the body, which this map must never keep.
 */
function takesKey(url: string): boolean {
  const { pathname } = new URL(url);
  return !pathname.startsWith('/api/v1/app/') || pathname === '/api/v1/app/tokens';
}

/**
 * A random key. Not `crypto.randomUUID`: a browser offers it on https and localhost only, and Assay may be served
 * over plain http inside a company's network.
 */
function newKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Requests whose outcome is open, by method, address and body → their key. */
const open = new Map<string, string>();
/** More open requests than a person leaves behind; the oldest is dropped past it. */
const MAX_OPEN = 50;

/** An answer that leaves it open whether the request was carried out (a stored 409 would only replay itself). */
function stillOpen(response: Response): boolean {
  return response.status >= 500 || response.status === 409;
}

function forget(key: string | null): void {
  if (!key) return;
  for (const [request, k] of open) if (k === key) open.delete(request);
}

export const idempotencyKeys: Middleware = {
  async onRequest({ request }) {
    if (request.method !== 'POST' || request.headers.has(IDEMPOTENCY_HEADER) || !takesKey(request.url)) return undefined;
    const fingerprint = `${request.url}\n${await request.clone().text()}`;
    let key = open.get(fingerprint);
    if (!key) {
      key = newKey();
      open.set(fingerprint, key);
      if (open.size > MAX_OPEN) open.delete(open.keys().next().value!);
    }
    request.headers.set(IDEMPOTENCY_HEADER, key);
    return request;
  },
  onResponse({ request, response }) {
    if (request.method === 'POST' && !stillOpen(response)) forget(request.headers.get(IDEMPOTENCY_HEADER));
    return undefined;
  },
};
