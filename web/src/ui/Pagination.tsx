import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { Schemas } from '../api/client';
import { PAGE_NUMBER } from './search-state';

/**
 * Previous/next for a paged list (the API's pagination envelope); the page lives in the URL. None past the list's
 * end: not "Page 9 of 6" with a Previous to another empty page, but `EmptyPageText`'s way back to the first page.
 */
export function Pagination({ pagination, onPage }: { pagination: Schemas['Pagination'] | undefined; onPage: (page: number) => void }) {
  // The page asked for while the list still shows the one it has (api/lists.ts): a second Next before the first
  // answer goes on from there, not to the same page again (never past the end). Tied to the answer it was asked from:
  // a new one resets it. The buttons are those of the page shown, so the one pressed keeps the focus while it loads.
  const [asked, setAsked] = useState<{ from: Schemas['Pagination']; page: number } | null>(null);
  if (!pagination || (!pagination.hasNext && !pagination.hasPrev)) return null;
  const pages = Math.max(1, Math.ceil(pagination.total / pagination.limit));
  if (pagination.page > pages) return null;
  const page = asked?.from === pagination ? asked.page : pagination.page;
  const go = (to: number) => {
    setAsked({ from: pagination, page: to });
    onPage(to);
  };
  return (
    <PagerNav label="Pages">
      <button type="button" className="button" disabled={!pagination.hasPrev} onClick={() => page > 1 && go(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button type="button" className="button" disabled={!pagination.hasNext} onClick={() => page < pages && go(page + 1)}>
        Next
      </button>
    </PagerNav>
  );
}

/**
 * A pager's `<nav>`. Its buttons stay while the next page loads (the list keeps the page it has: api/lists.ts), so
 * the focus stays on the one pressed; if that one is disabled once the page came (the first or last page), the
 * focus goes to the other one, not to the top of the document.
 */
export function PagerNav({ label, children }: { label: string; children: ReactNode }) {
  const focused = useRef<HTMLButtonElement | null>(null);
  useEffect(() => {
    const button = focused.current;
    if (!button?.disabled) return;
    focused.current = null;
    if (document.activeElement === button || document.activeElement === document.body) {
      button.closest('nav')?.querySelector<HTMLButtonElement>('button:not(:disabled)')?.focus();
    }
  });
  return (
    <nav className="pagination" aria-label={label} onFocus={(e) => (focused.current = e.target.closest('button'))}>
      {children}
    </nav>
  );
}

/**
 * The page a URL's `page` asks for: an integer from 1 to the API's highest (1,000,000), else the first. A page
 * typed as -1, 1.5 or 99999999 was sent as it was, and the API's 400 left the list a dead end.
 */
export function pageNumber(value: string | undefined): number {
  const page = value === undefined ? undefined : PAGE_NUMBER(value, {});
  return page === undefined ? 1 : Number(page);
}

/**
 * What an empty page of a paged list says. Past the list's end (a link kept while the list shrank, or a page typed
 * into the URL) the list is not empty: it says where the list ends and leads back to the first page. Otherwise
 * `none`, the list's own words for no rows.
 */
export function EmptyPageText({
  pagination,
  none,
  onFirst,
}: {
  pagination: Schemas['Pagination'] | undefined;
  none: ReactNode;
  onFirst: () => void;
}) {
  if (!pagination || pagination.total === 0 || pagination.page <= 1) return <>{none}</>;
  return (
    <>
      Nothing on page {pagination.page}: the list ends at page {Math.ceil(pagination.total / pagination.limit)}.{' '}
      <button type="button" className="link-button" onClick={onFirst}>
        Go to the first page
      </button>
    </>
  );
}
