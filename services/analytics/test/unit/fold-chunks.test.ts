/**
 * A fold pulls a run's results page by page and merges them in chunks (store/fold.ts), so a large run never sits in
 * memory whole. Chunks must add up to one pass: the same runs folded at once into one project and in pages of 4
 * with chunks of 5 results and merges every 4 rows into another leave the same rows in every rollup, window and run row (keys compared by
 * what they stand for: test id, file, branch, tag set).
 */
import { withTransaction } from '@assay/db';
import { foldRuns, type FoldInput, type RunWithResults } from '../../src/store/fold';
import { analyticsUnit, daysAgo, NOW, runOf, type AnalyticsUnit, type RunSpec } from './fixture';

let u: AnalyticsUnit;
beforeAll(async () => {
  u = await analyticsUnit('analytics_fold_chunks');
});
afterAll(() => u.db.drop());

const spec = (prefix: string): RunSpec[] =>
  [0, 1, 2].map((n) => ({
    id: `${prefix}-run-${n}`,
    at: daysAgo(n * 3),
    branch: n === 1 ? 'feature' : 'main',
    tags: n === 0 ? ['nightly'] : [],
    results: Array.from({ length: 13 }, (_, i) => ({
      test: `t${i}`,
      file: `f${i % 3}.spec.ts`,
      outcome: (['expected', 'unexpected', 'flaky', 'skipped'] as const)[(i + n) % 4],
      ms: 100 + i * 17 + n,
      tags: i % 2 ? ['@smoke'] : i % 5 ? ['@slow', '@smoke'] : [],
    })),
  }));

/** The results in pages of `size`, handed out only when asked (as the runs service's pages are). */
const paged = (input: RunWithResults, size: number): FoldInput => ({
  run: input.run,
  results: async function* () {
    for (let i = 0; i < input.results.length; i += size) yield input.results.slice(i, i + size);
  },
});

/** Every table's rows of a project, keys replaced by what they stand for, run ids without their prefix. */
async function tables(projectId: string): Promise<Record<string, string[]>> {
  const natural = `
    (SELECT test_id FROM tests x WHERE x.test_key = t.test_key) AS test,
    (SELECT file FROM files x WHERE x.file_key = t.file_key) AS file,
    (SELECT value FROM dims x WHERE x.dim_key = t.branch_key) AS branch,
    (SELECT value FROM dims x WHERE x.dim_key = t.env_key) AS env,
    (SELECT value FROM dims x WHERE x.dim_key = t.tag_key) AS tag,
    (SELECT tags FROM tagsets x WHERE x.tagset_key = t.tagset_key) AS tagset`;
  const out: Record<string, string[]> = {};
  for (const table of ['test_days', 'file_days', 'project_days', 'tag_days', 'test_windows', 'file_windows', 'project_windows', 'runs']) {
    const cols = (
      await u.db.pool.query(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`,
        [table],
      )
    ).rows.map((r) => r.column_name as string);
    const has = (c: string) => cols.includes(c);
    const { rows } = await u.db.pool.query(
      `SELECT to_jsonb(t) - 'project_key' - 'test_key' - 'file_key' - 'branch_key' - 'env_key' - 'tag_key' - 'tagset_key'
              - 'run_id' - 'folded_at' - 'snapshot' AS rest,
              ${natural.replace(/t\.(\w+_key)/g, (m, c: string) => (has(c) ? m : 'NULL'))}
         FROM ${table} t JOIN projects p ON p.project_key = t.project_key WHERE p.project_id = $1`,
      [projectId],
    );
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

describe('folding in chunks', () => {
  it('leaves the same rollups, windows and run rows as folding every result at once', async () => {
    await u.w.model.fold(
      'whole',
      spec('w').map((s) => runOf('whole', s)),
    );
    const inputs = spec('c').map((s) => paged(runOf('chunked', s), 4));
    const outcome = await withTransaction(u.db.pool, (c) => foldRuns(c, 'chunked', inputs, NOW, { chunkResults: 5, mergeRows: 4 }));
    expect(outcome).toEqual({ runs: 3, results: 39 });
    const [whole, chunked] = [await tables('whole'), await tables('chunked')];
    expect(whole.tag_days!.length).toBeGreaterThan(0);
    expect(whole.runs).toHaveLength(3);
    expect(chunked).toEqual(whole);
  });
});
