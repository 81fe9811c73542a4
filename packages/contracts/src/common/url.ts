/**
 * URL-typed fields people write (linked issues, deploy URLs, run links, webhook targets, CI links in ingestion
 * metadata) accept http and https only: the web app renders them as links, and a stored `javascript:` or `data:`
 * URL would run in the page of whoever clicks it.
 */
export const HTTP_URL_MESSAGE = 'must be an http or https URL';

export function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
