/**
 * Pagination on the service side: page numbers for the public reads, keyset pages by id for the admin lists.
 * The gateway has already checked `limit` against the spec's
 * allowed sizes; a service still clamps what it receives (defence in depth: another caller, a bug) so a query
 * never reads an unbounded page.
 */
import type { PageInfo, PageRequest } from '@assay/proto/assay/common/v1/common_pb';
import { ID_PATTERN } from '@assay/db';
import { validation } from '@assay/errors';

export const DEFAULT_PAGE_LIMIT = 10;
export const MAX_PAGE_LIMIT = 100;

export interface Paging {
  page: number;
  limit: number;
  offset: number;
}

/** The page a request asks for: page ≥ 1, 1 ≤ limit ≤ `max` (default 10), and the row offset. */
export function paging(p: Pick<PageRequest, 'page' | 'limit'> | undefined, max = MAX_PAGE_LIMIT): Paging {
  const page = Math.max(1, Math.trunc(p?.page || 1));
  const limit = Math.min(max, Math.max(1, Math.trunc(p?.limit || DEFAULT_PAGE_LIMIT)));
  return { page, limit, offset: (page - 1) * limit };
}

/** The page info of an answer. */
export function pageInfo(p: Paging, total: number | bigint): Omit<PageInfo, '$typeName'> {
  return { page: p.page, limit: p.limit, total: BigInt(total) };
}

/**
 * Keyset pages of the admin lists (the admin CLI's `organizations`, `projects`, `rules`, …): newest first by id
 * (an id begins with its creation second, so the order is stable and a new row never shifts a later page).
 * `pageSize` 0 reads 50, anything above 200 reads 200; `pageToken` is the last id of the previous page.
 */
export const DEFAULT_ID_PAGE_SIZE = 50;
export const MAX_ID_PAGE_SIZE = 200;

export interface IdPage {
  /** Rows to answer. A store reads one more, to tell whether a next page exists. */
  size: number;
  /** Only ids below this one (the previous page's last); undefined on the first page. */
  before: string | undefined;
}

export function idPage(req: { pageSize: number; pageToken: string }): IdPage {
  if (req.pageToken !== '' && !ID_PATTERN.test(req.pageToken)) {
    throw validation('page_token must be the next_page_token of a previous page', [{ path: 'page_token', message: 'is invalid' }]);
  }
  const size = req.pageSize <= 0 ? DEFAULT_ID_PAGE_SIZE : Math.min(MAX_ID_PAGE_SIZE, Math.trunc(req.pageSize));
  return { size, before: req.pageToken || undefined };
}

/** The page of `rows` (read with LIMIT size + 1) and the token of the next one ('' on the last page). */
export function idPageOf<T>(rows: T[], page: IdPage, idOf: (row: T) => string): { rows: T[]; nextPageToken: string } {
  if (rows.length <= page.size) return { rows, nextPageToken: '' };
  const kept = rows.slice(0, page.size);
  return { rows: kept, nextPageToken: idOf(kept[kept.length - 1]!) };
}
