/**
 * `pageJson` and `okJson` write the same bytes as serialising `page()` and `ok()`: the gateway sends them around a
 * service's rendered items or data (GET test-runs, GET manual-test-cases, GET analytics/summary), so a difference
 * would change the public answer.
 */
import { ok, okJson } from '../../src/common/envelope';
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

test.each([
  ['an object with quotes, escapes and non-ASCII text', { title: 'say "ü" \\ ✓', n: 1.5, none: null }],
  ['an empty object', {}],
])('okJson around %s is ok() serialised', (_what, data: object) => {
  const bytes = okJson(Buffer.from(JSON.stringify(data)));
  expect(bytes.toString('utf8')).toBe(JSON.stringify(ok(data)));
  expect(JSON.parse(bytes.toString('utf8'))).toEqual({ success: true, data });
});
