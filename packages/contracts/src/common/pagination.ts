/**
 * The shared pagination rules (spec §4.1, CONTRACT §9): `limit` ∈ {10, 25, 50, 100} (explorer 10/25/50), any
 * other value → 400 INVALID_LIMIT; `page` ≥ 1, else 400 VALIDATION_ERROR; default page 1, limit 10.
 */
import { Type } from '@sinclair/typebox';
import { OK_JSON_HEAD } from './envelope';

export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_PAGE = 1;
export const DEFAULT_LIMIT = 10;
export const MAX_PAGE = 1_000_000;
export const EXPLORER_PAGE_SIZES = [10, 25, 50] as const;

export const Limit = (sizes: readonly number[] = PAGE_SIZES) =>
  Type.Unsafe<number>({ type: 'integer', enum: [...sizes], default: DEFAULT_LIMIT, description: `page size: one of ${sizes.join(', ')}` });

/** Both optional (the defaults apply when absent, so the document must not call them required). */
export const PageQuery = (sizes: readonly number[] = PAGE_SIZES) => ({
  // The upper bound keeps page × limit inside the services' 32-bit page fields (found by fuzzing).
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE, description: `page number, from 1 (at most ${MAX_PAGE})` }),
  ),
  limit: Type.Optional(Limit(sizes)),
});

export interface PageQueryValue {
  page: number;
  limit: number;
}

/** The page a validated query asks for (Ajv has filled the defaults; the types cannot know it). */
export const pageOf = (q: { page?: number; limit?: number }): PageQueryValue => ({
  page: q.page ?? DEFAULT_PAGE,
  limit: q.limit ?? DEFAULT_LIMIT,
});

export interface PaginationValue {
  page: number;
  limit: number;
  total: number;
  hasNext: boolean;
  hasPrev: boolean;
  hasMore: boolean;
}

export function pagination(page: number, limit: number, total: number): PaginationValue {
  const hasNext = page * limit < total;
  return { page, limit, total, hasNext, hasPrev: page > 1, hasMore: hasNext };
}

export function page<T>(data: T[], p: PaginationValue): { success: true; data: T[]; pagination: PaginationValue } {
  return { success: true, data, pagination: p };
}

/**
 * `page()` as the bytes of its JSON, around items a service already rendered as the public JSON array (ListRuns,
 * ListCases with `json`): the envelope is written around them instead of parsing and serialising them again.
 */
export function pageJson(itemsJson: Uint8Array, p: PaginationValue): Buffer {
  return Buffer.concat([OK_JSON_HEAD, itemsJson, Buffer.from(`,"pagination":${JSON.stringify(p)}}`)]);
}
