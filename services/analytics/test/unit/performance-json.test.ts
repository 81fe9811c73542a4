/**
 * `performanceJsonBytes` (the public performance rows written by Postgres) against the way it replaced, on the same
 * rows of a real schema: the rows as test figures (`performance`), as columns, then the contract's
 * `performanceJsonFromColumns` and `JSON.stringify`.
 */
import { create } from '@bufbuild/protobuf';
import { TestColumnsSchema } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { performanceJsonFromColumns } from '@assay/contracts/analytics/analytics';
import { testSchema, type TestSchema } from '@assay/testkit';
import { MIGRATIONS_DIR } from '../../src/service';
import { testColumns } from '../../src/domain/view';
import { performance, performanceJsonBytes } from '../../src/store/analytics';

const PROJECT = 1;
const WINDOW = 30;

interface Row {
  test_id: string;
  title: string;
  file: string;
  project_name: string;
  executions: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
  dur_sum: number | string;
  dur_min: number | null;
  dur_max: number | null;
  p95: number;
  last_run_at: string | null;
}

const row = (i: number, over: Partial<Row> = {}): Row => ({
  test_id: `id-${i}`,
  title: `suite › case ${i}`,
  file: `specs/area-${i % 3}.spec.ts`,
  project_name: i % 2 ? 'chromium' : '',
  executions: 3 + i,
  passed: 1 + (i % 3),
  failed: i % 2,
  flaky: i % 4 === 0 ? 1 : 0,
  skipped: i % 5 === 0 ? 1 : 0,
  dur_sum: 1234 * i + 7,
  dur_min: 3 * i,
  dur_max: 400 * i + 1,
  p95: 21 * (i % 17),
  last_run_at: new Date(1_773_100_000_123 + i * 86_400_000).toISOString(),
  ...over,
});

let db: TestSchema;
beforeAll(async () => {
  db = await testSchema(MIGRATIONS_DIR, 'performance-json');
});
afterAll(() => db.drop());

async function insert(rows: Row[]): Promise<void> {
  for (const r of rows) {
    const { rows: f } = await db.pool.query(
      `INSERT INTO files (project_key, file) VALUES ($1, $2) ON CONFLICT (project_key, file) DO UPDATE SET file = EXCLUDED.file
       RETURNING file_key`,
      [PROJECT, r.file],
    );
    const { rows: t } = await db.pool.query(
      `INSERT INTO tests (project_key, test_id, file_key, title_path, title, project_name, tags_at)
       VALUES ($1, $2, $3, ARRAY['suite', $4], $4, $5, now()) RETURNING test_key`,
      [PROJECT, r.test_id, f[0].file_key, r.title, r.project_name],
    );
    await db.pool.query(
      `INSERT INTO test_windows (project_key, window_days, test_key, executions, passed, failed, flaky, skipped, dur_sum, dur_min,
                                 dur_max, h_idx, h_cnt, p50, p90, p95, p99, last_run_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, '{}', '{}', $12, $13, $14, $15, $16)`,
      [
        PROJECT,
        WINDOW,
        t[0].test_key,
        r.executions,
        r.passed,
        r.failed,
        r.flaky,
        r.skipped,
        r.dur_sum,
        r.dur_min,
        r.dur_max,
        Math.floor(r.p95 / 2),
        r.p95,
        r.p95,
        r.p95 * 2,
        r.last_run_at,
      ],
    );
  }
}

const before = async (projectKey: number) =>
  JSON.stringify(performanceJsonFromColumns(create(TestColumnsSchema, testColumns(await performance(db.pool, projectKey, WINDOW)))));

describe('performanceJsonBytes', () => {
  it('is what the columns gave, byte for byte: rates and averages rounded alike, odd strings, missing extremes and times, order', async () => {
    await insert([
      ...Array.from({ length: 40 }, (_, i) => row(i)),
      // 1/32 = 3.125 %: x = 312.5, which Math.round takes up (Postgres' round() would take it to the even 312)
      row(40, { executions: 32, passed: 31, failed: 1, flaky: 0, skipped: 0, dur_sum: 1 }),
      // 1/4000 → x = 2.5 and 1/20000 → x = 0.5: halves again; 1/8 ms average → 12.5 hundredths
      row(41, { executions: 4000, passed: 3999, failed: 1, flaky: 0, skipped: 0, dur_sum: 1, p95: 5 }),
      row(42, { executions: 20000, passed: 19998, failed: 1, flaky: 1, skipped: 0, dur_sum: 20001 }),
      row(43, { executions: 8, passed: 8, failed: 0, flaky: 0, skipped: 0, dur_sum: 1 }),
      row(44, { title: 'a "quoted" \\ title\n\twith\u0001control\u001f \u2028 and ünïcode 🎭 \u007f', project_name: '</script>' }),
      row(45, { dur_min: null, dur_max: null, last_run_at: null }),
      // all skipped: not in the list
      row(46, { executions: 2, skipped: 2, passed: 0, failed: 0, flaky: 0 }),
      row(47, { dur_sum: '9007199254740', executions: 7, skipped: 0 }),
      // microseconds are cut to milliseconds; before 1970 there is no last run
      row(48, { last_run_at: '2026-03-10T12:00:00.999999Z' }),
      row(49, { last_run_at: '1969-12-31T23:59:59.500Z' }),
      // equal p95: ordered by title in byte order (upper case first), then by test id
      row(50, { p95: 7777, title: 'b' }),
      row(51, { p95: 7777, title: 'B' }),
      row(52, { p95: 7777, title: 'b', test_id: 'id-0050-twin' }),
    ]);
    const text = (await performanceJsonBytes(db.pool, PROJECT, WINDOW)).toString('utf8');
    expect(text).toBe(await before(PROJECT));
    const parsed = JSON.parse(text) as { testId: string; failureRate: number; flakyRate: number; avgDuration: number; lastRunAt: string }[];
    expect(parsed).toHaveLength(52);
    const byId = new Map(parsed.map((p) => [p.testId, p]));
    expect([byId.get('id-40')!.failureRate, byId.get('id-41')!.failureRate, byId.get('id-42')!.flakyRate]).toEqual([3.13, 0.03, 0.01]);
    expect(byId.get('id-43')!.avgDuration).toBe(0.13);
    expect([byId.get('id-48')!.lastRunAt, byId.get('id-49')!.lastRunAt]).toEqual(['2026-03-10T12:00:00.999Z', null]);
    expect(parsed.slice(0, 3).map((p) => p.testId)).toEqual(['id-51', 'id-0050-twin', 'id-50']);
  });

  it('is an empty list for a project without rows', async () => {
    expect((await performanceJsonBytes(db.pool, PROJECT + 1, WINDOW)).toString('utf8')).toBe('[]');
    expect(await before(PROJECT + 1)).toBe('[]');
  });
});
