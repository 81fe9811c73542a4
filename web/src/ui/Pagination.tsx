import type { Schemas } from '../api/client';

/** Previous/next for a paged list (the API's pagination envelope); the page lives in the URL. */
export function Pagination({ pagination, onPage }: { pagination: Schemas['Pagination'] | undefined; onPage: (page: number) => void }) {
  if (!pagination || (!pagination.hasNext && !pagination.hasPrev)) return null;
  const pages = Math.max(1, Math.ceil(pagination.total / pagination.limit));
  return (
    <nav className="pagination" aria-label="Pages">
      <button type="button" className="button" disabled={!pagination.hasPrev} onClick={() => onPage(pagination.page - 1)}>
        Previous
      </button>
      <span>
        Page {pagination.page} of {pages}
      </span>
      <button type="button" className="button" disabled={!pagination.hasNext} onClick={() => onPage(pagination.page + 1)}>
        Next
      </button>
    </nav>
  );
}
