/**
 * A paged or filtered list keeps showing what it has while another page or filter of it loads: TanStack Query's
 * `placeholderData`, so the list and its pager (with the button just pressed, and the focus on it) stay on screen,
 * marked `aria-busy` (styles.css draws a bar), instead of a "Loading…" that takes them away and moves the page.
 *
 *   const runs = $api.useQuery('get', PATH, { params: { path: { projectId }, query: { page } } },
 *     { placeholderData: keepSameList({ projectId }) });
 *   <div className="table-scroll" aria-busy={runs.isPlaceholderData || undefined}>…</div>
 *
 * Only the same list's data is kept: the previous query (openapi-react-query's key `[method, path, init]`, from the
 * same hook call, so the same method and path) must have had the same path parameters, differing only in its query
 * (page, limit, filters). Another project, run or webhook starts from "Loading…": never one's rows under another's
 * address. A list whose entity is named in the query (a test's history: `testId`) names those parameters too.
 * Nor an empty answer (the list's "none" says something of the filter just left). Not for a detail page (a run, a
 * case): it shows one entity, and another's is never a placeholder for it.
 */
import { hashKey, type QueryKey } from '@tanstack/react-query';

interface Init {
  params?: { path?: object; query?: Record<string, unknown> };
}

/**
 * The `placeholderData` of a list: the previous data, if its query had these path parameters (and these values
 * of the query parameters in `naming`). A new function each render, on purpose: TanStack Query reuses the
 * placeholder it computed while the function stays the same, which would carry one entity's rows to the next.
 */
export function keepSameList(path: object, naming: Record<string, unknown> = {}) {
  const list = hashKey([path, naming]);
  return <T>(previousData: T | undefined, previousQuery: { queryKey: QueryKey } | undefined): T | undefined => {
    // An empty answer is not kept: its words ("No closed runs.", "Nothing on page 9") would speak for the new one.
    const rows = (previousData as { data?: unknown } | undefined)?.data;
    if (Array.isArray(rows) && rows.length === 0) return undefined;
    const params = (previousQuery?.queryKey[2] as Init | undefined)?.params;
    const named = Object.fromEntries(Object.keys(naming).map((k) => [k, params?.query?.[k]]));
    return previousData !== undefined && hashKey([params?.path ?? {}, named]) === list ? previousData : undefined;
  };
}
