/**
 * Page-number pagination on the service side. The gateway has already checked `limit` against the spec's
 * allowed sizes; a service still clamps what it receives (defence in depth: another caller, a bug) so a query
 * never reads an unbounded page.
 */
import type { PageInfo, PageRequest } from '@assay/proto/assay/common/v1/common_pb';

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
