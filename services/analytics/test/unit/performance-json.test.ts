/**
 * `performanceJson` (the public performance rows written straight from the pg rows) against the way it replaced:
 * the rows as test figures, as columns, then the contract's `performanceJsonFromColumns` and `JSON.stringify`.
 */
import { create } from '@bufbuild/protobuf';
import { TestColumnsSchema } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { performanceJsonFromColumns } from '@assay/contracts/analytics/analytics';
import { performanceJson, testColumns } from '../../src/domain/view';
import { testOfRow } from '../../src/store/windows';

const row = (i: number, over: Record<string, unknown> = {}) => ({
  test_id: `id-${i}`,
  title: `suite › case ${i}`,
  title_path: ['suite', `case ${i}`],
  file: `specs/area-${i % 3}.spec.ts`,
  project_name: i % 2 ? 'chromium' : '',
  tags: [],
  executions: 3 + i,
  passed: 1 + (i % 3),
  failed: i % 2,
  flaky: i % 4 === 0 ? 1 : 0,
  skipped: i % 5 === 0 ? 1 : 0,
  dur_sum: 1234 * i + 7,
  dur_min: 3 * i,
  dur_max: 400 * i + 1,
  p50: 10 * i,
  p90: 20 * i,
  p95: 21 * i,
  p99: 30 * i,
  last_run_at: 1_773_100_000_123 + i * 86_400_000,
  last_failed_at: null,
  last_flaky_at: null,
  ...over,
});

const before = (rows: ReturnType<typeof row>[]) =>
  JSON.stringify(performanceJsonFromColumns(create(TestColumnsSchema, testColumns(rows.map(testOfRow)))));

describe('performanceJson', () => {
  it('is what the columns gave, byte for byte: rates and averages rounded alike, odd strings, missing extremes and times', () => {
    const rows = [
      ...Array.from({ length: 40 }, (_, i) => row(i)),
      // 1/32 = 3.125 %: a half that rounds up
      row(40, { executions: 32, passed: 31, failed: 1, flaky: 0, skipped: 0, dur_sum: 1 }),
      row(41, { executions: 3, passed: 1, failed: 1, flaky: 1, skipped: 0, dur_sum: 10 }),
      row(42, { title: 'a "quoted" \\ title\n\twith\u0001control \u2028 and ünïcode 🎭', project_name: '</script>' }),
      row(43, { dur_min: null, dur_max: null, last_run_at: null }),
      row(44, { executions: 2, skipped: 2, passed: 0, failed: 0, flaky: 0 }),
      row(45, { dur_sum: 9_007_199_254_740, executions: 7, skipped: 0 }),
    ];
    expect(performanceJson(rows)).toBe(before(rows));
    expect(performanceJson([])).toBe(before([]));
  });
});
