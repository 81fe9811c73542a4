/** SQL of the `test-case-explorer` family: the window's tests, filtered, sorted and paged. */
import type { Queryable } from '@assay/db';
import { read } from './read';
import type { ExplorerSortName, ExplorerStatusName, SortOrderName } from '@assay/contracts/analytics/values';
import { TEST_COLUMNS, testOfRow, type TestFigures } from './windows';

/** Each `status` filter as a condition on the window row (slow: at or above the threshold, `$5`). */
const FILTERS: Record<ExplorerStatusName, string> = {
  failing: 'w.failed > 0',
  flaky: 'w.flaky > 0',
  stable: 'w.failed = 0 AND w.flaky = 0 AND w.executions > w.skipped',
  slow: 'w.executions > w.skipped AND w.p95 >= $5',
};

const SORTS: Record<ExplorerSortName, string> = {
  flaky_rate: 'coalesce(w.flaky::float8 / nullif(w.executions - w.skipped, 0), 0)',
  failure_rate: 'coalesce(w.failed::float8 / nullif(w.executions - w.skipped, 0), 0)',
  p95_duration: 'w.p95',
  executions: 'w.executions',
};

/** A page of the window's tests, filtered and sorted (ties by title, then test id), and how many match. */
export async function listTests(
  db: Queryable,
  projectKey: number,
  window: number,
  o: { filter?: ExplorerStatusName; sort: ExplorerSortName; order: SortOrderName; limit: number; offset: number; slowThresholdMs: number },
): Promise<{ total: number; tests: TestFigures[] }> {
  const where = o.filter ? `AND ${FILTERS[o.filter]}` : '';
  const { rows } = await read(
    db,
    `SELECT ${TEST_COLUMNS}, count(*) OVER () AS total
       FROM test_windows w JOIN tests t ON t.test_key = w.test_key JOIN files f ON f.file_key = t.file_key
      WHERE w.project_key = $1 AND w.window_days = $2 ${where}
      ORDER BY ${SORTS[o.sort]} ${o.order === 'asc' ? 'ASC' : 'DESC'}, t.title COLLATE "C", t.test_id
      LIMIT $3 OFFSET $4`,
    [projectKey, window, o.limit, o.offset, ...(o.filter === 'slow' ? [o.slowThresholdMs] : [])],
  );
  if (rows.length === 0 && o.offset > 0) {
    const count = await read(
      db,
      `SELECT count(*) AS n FROM test_windows w WHERE w.project_key = $1 AND w.window_days = $2 ${where.replace('$5', '$3')}`,
      [projectKey, window, ...(o.filter === 'slow' ? [o.slowThresholdMs] : [])],
    );
    return { total: Number(count.rows[0].n), tests: [] };
  }
  return { total: rows[0] ? Number(rows[0].total) : 0, tests: rows.map(testOfRow) };
}
