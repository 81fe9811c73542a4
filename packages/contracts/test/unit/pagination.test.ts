/**
 * `pageJson` writes the same bytes as serialising `page()`: the gateway sends it around a service's rendered items
 * (GET test-runs, GET manual-test-cases), so a difference would change the public answer.
 */
import { page, pageJson, pagination } from '../../src/common/pagination';

test.each([
  ['no items', []],
  [
    'items with quotes, escapes and non-ASCII text',
    [
      { id: 'a', title: 'say "ü" \\ ✓' },
      { id: 'b', title: null },
    ],
  ],
])('pageJson around %s is page() serialised', (_what, items: unknown[]) => {
  const p = pagination(2, 10, 25);
  const bytes = pageJson(Buffer.from(JSON.stringify(items)), p);
  expect(bytes.toString('utf8')).toBe(JSON.stringify(page(items, p)));
  expect(JSON.parse(bytes.toString('utf8'))).toEqual({
    success: true,
    data: items,
    pagination: { page: 2, limit: 10, total: 25, hasNext: true, hasPrev: true, hasMore: true },
  });
});
