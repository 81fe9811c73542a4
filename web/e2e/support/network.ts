import type { Page } from '@playwright/test';

/**
 * Holds the page's API requests that `match` accepts until `release()` (a slow network). `requested` settles once
 * one reached the route: a page shows its loading state before its request leaves, and a release called before then
 * would release nothing.
 */
export async function hold(page: Page, match: (url: URL) => boolean) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let sent!: () => void;
  const requested = new Promise<void>((resolve) => (sent = resolve));
  await page.route(
    (url) => url.pathname.startsWith('/api/') && match(url),
    async (route) => {
      sent();
      await released;
      await route.continue().catch(() => undefined);
    },
  );
  return { requested, release };
}
