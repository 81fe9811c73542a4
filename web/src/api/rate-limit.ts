/**
 * The reads limit, as the web app lives with it. A session counts as a token of its user (CONTRACT), so the user's
 * reads share RATE_LIMITS' `reads` bucket (100 a minute by default), and a person paging quickly through runs can use
 * it up. A refused read's 429 says when the window resets (`Retry-After`); the query client asks again then
 * (client.ts), and the shell says how long the wait is, instead of each page showing an error.
 */
import { useSyncExternalStore } from 'react';
import { serverDelay } from '@assay/client';

interface Wait {
  /** Whole seconds until reads are allowed again; 0 for no wait. */
  seconds: number;
  /** The limit the 429 gave (`RateLimit-Limit`), when it did. */
  limit?: number;
}

/** When reads are allowed again (ms since the epoch). */
let until = 0;
let snapshot: Wait = { seconds: 0 };
let ticking: ReturnType<typeof setInterval> | undefined;
const listeners = new Set<() => void>();

/** Brings the seconds left up to date, tells the subscribers when they changed, and stops ticking at 0. */
function tick(limit = snapshot.limit): void {
  const seconds = Math.ceil(msUntilReads() / 1000);
  if (seconds !== snapshot.seconds || limit !== snapshot.limit) {
    snapshot = { seconds, limit };
    for (const fn of listeners) fn();
  }
  if (seconds === 0 && ticking) {
    clearInterval(ticking);
    ticking = undefined;
  }
}

/** Called with a refused read's answer (client.ts's middleware). */
export function noteReadsRefused(response: Response): void {
  // The client's own reading of `Retry-After` / `RateLimit-Reset`. The window is 60 s: a missing or odd header
  // waits a few seconds, never longer than a window.
  const asked = serverDelay(response);
  const ms = asked !== undefined && asked > 0 ? Math.min(asked, 60_000) : 5000;
  until = Math.max(until, Date.now() + ms);
  tick(Number(response.headers.get('RateLimit-Limit')) || snapshot.limit);
  ticking ??= setInterval(tick, 250);
}

/** How long until reads are allowed again, in ms (0 when they are). */
export function msUntilReads(): number {
  return Math.max(0, until - Date.now());
}

function subscribe(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The current wait: whole seconds left (0 for none) and the limit, as they change. */
export function useReadsWait(): Wait {
  return useSyncExternalStore(subscribe, () => snapshot);
}
