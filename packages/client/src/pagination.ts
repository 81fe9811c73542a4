/**
 * Page iterators for the list endpoints (spec §2.1, §4.2; CONTRACT §2). The API pages in two ways, and one
 * iterator follows both, reading which from the answer's `pagination` object:
 *
 * - by page number: `?page=N&limit=L` answers `pagination {page, limit, total, hasNext, hasPrev, hasMore}`
 *   (webhook lists: `{page, limit, total, hasMore}`); the next page is `page + 1` while `hasNext`/`hasMore`.
 * - by offset: `?offset=O&limit=L` (the test-case history) answers `pagination {offset, limit, total, hasNext}`;
 *   the next page starts at `offset + items on this page` while `hasNext`.
 *
 * The API has no cursor-based lists. A page that fails throws AssayApiError (after the client's retries).
 */
import type { Client, FetchOptions } from 'openapi-fetch';
import { AssayApiError } from './errors.ts';
import type { paths } from './schema.ts';

type GetOperation<P extends keyof paths> = NonNullable<paths[P]['get']>;
type OkBody<P extends keyof paths> =
  GetOperation<P> extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;

/** Every GET path whose answer carries `pagination`. */
export type PaginatedPath = { [P in keyof paths]: OkBody<P> extends { pagination: unknown } ? P : never }[keyof paths];
/** The `data` of one page of `P`. */
export type PageData<P extends PaginatedPath> = OkBody<P> extends { data: infer D } ? D : never;
/** One item of a page of `P` (when `data` is the array of items). */
export type PageItem<P extends PaginatedPath> = PageData<P> extends readonly (infer I)[] ? I : never;
/** The request options of `GET P` (path and query parameters, headers, signal…); page/offset are set by the iterator. */
export type PageInit<P extends PaginatedPath> = FetchOptions<GetOperation<P>>;

export interface PaginateOptions<P extends PaginatedPath, I> {
  /** Picks the items out of a page's `data` (default: `data` itself, which must be an array; `workflow-rules` answers `{rules}`). */
  items?: (data: PageData<P>) => readonly I[];
  /** Stops after this many pages (default: no limit). */
  maxPages?: number;
}

/** One page as the API answered it. */
export interface Page<P extends PaginatedPath, I> {
  items: I[];
  data: PageData<P>;
  pagination: Record<string, unknown>;
  response: Response;
}

type AnyClient = Pick<Client<paths>, 'GET'>;

/** Every page of a list, following `hasNext`/`hasMore` by page number or by offset. */
export async function* pages<P extends PaginatedPath, I = PageItem<P>>(
  client: AnyClient,
  path: P,
  init: PageInit<P>,
  options: PaginateOptions<P, I> = {},
): AsyncGenerator<Page<P, I>, void, undefined> {
  const base = init as { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;
  let query: Record<string, unknown> = { ...(base.params?.query ?? {}) };
  const pick = options.items ?? ((data: PageData<P>) => data as unknown as readonly I[]);
  for (let n = 1; options.maxPages === undefined || n <= options.maxPages; n++) {
    const get = client.GET as unknown as (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data: body, error, response } = await get(path, { ...base, params: { ...base.params, query } });
    if (error !== undefined || !response.ok) throw new AssayApiError(response, error);
    const { data, pagination } = body as { data: PageData<P>; pagination?: Record<string, unknown> };
    if (!pagination) throw new TypeError(`${path} answered without a pagination object`);
    const items = pick(data);
    if (!Array.isArray(items)) throw new TypeError(`${path}: the page's data is not an array of items; pass options.items`);
    yield { items: [...items], data, pagination, response };
    const more = (pagination.hasNext ?? pagination.hasMore) === true;
    if (!more || items.length === 0) return;
    if (typeof pagination.offset === 'number') {
      query = { ...query, offset: pagination.offset + items.length };
    } else {
      const page = typeof pagination.page === 'number' ? pagination.page : Number(query.page ?? 1);
      query = { ...query, page: page + 1 };
    }
  }
}

/** Every item of a list, page after page. */
export async function* paginate<P extends PaginatedPath, I = PageItem<P>>(
  client: AnyClient,
  path: P,
  init: PageInit<P>,
  options: PaginateOptions<P, I> = {},
): AsyncGenerator<I, void, undefined> {
  for await (const page of pages(client, path, init, options)) yield* page.items;
}
