/**
 * A run's tests as one table that stays fast at 10,000 rows and more: search by title or file and filter by
 * status (both in the URL), and only the rows in view are in the DOM (@tanstack/react-virtual; spacer rows keep
 * the table's height and its semantics, aria-rowcount/aria-rowindex tell assistive technology where a row is).
 */
import { useDeferredValue, useMemo, useRef } from 'react';
import { Link } from 'react-router';
import { useVirtualizer } from '@tanstack/react-virtual';
import { href, PAGES } from '../../../app/paths';
import { oneOf, useSearchState } from '../../../ui/search-state';
import { StatusBadge } from '../../../ui/StatusBadge';
import { formatCount, formatDuration } from '../../../ui/format';
import { Empty } from '../../../ui/states';
import { ScrollRegion } from '../../../ui/ScrollRegion';
import { statusLabel, TEST_STATUSES, type RunRow, type SpecFile, type TestStatus } from '../data';

/** Fixed row height: the virtualizer needs no measuring, and scrolling never reflows. */
const ROW_HEIGHT = 40;
const SEARCH_KEYS = ['q', 'status'] as const;

export function TestList({
  projectId,
  runId,
  rows,
  specs,
  caption,
  showFile = true,
}: {
  projectId: string;
  runId: string;
  rows: RunRow[];
  specs: SpecFile[];
  caption: string;
  showFile?: boolean;
}) {
  const [state, set] = useSearchState(SEARCH_KEYS, { status: oneOf(TEST_STATUSES) });
  const query = state.q ?? '';
  const status = TEST_STATUSES.find((s) => s === state.status);
  // Typing stays responsive: the filtering of a big list follows the input at a lower priority.
  const deferredQuery = useDeferredValue(query.trim().toLowerCase());
  const searchable = useMemo(() => rows.map((r) => `${r.title}\n${specs[r.spec]?.file ?? ''}`.toLowerCase()), [rows, specs]);
  const counts = useMemo(() => {
    const c = Object.fromEntries(TEST_STATUSES.map((s) => [s, 0])) as Record<TestStatus, number>;
    for (const r of rows) c[r.status]++;
    return c;
  }, [rows]);
  const shown = useMemo(() => {
    const out: RunRow[] = [];
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      if ((status === undefined || r.status === status) && (deferredQuery === '' || searchable[i]!.includes(deferredQuery))) out.push(r);
    }
    return out;
  }, [rows, searchable, status, deferredQuery]);

  const scroller = useRef<HTMLDivElement>(null);
  // The virtualizer's functions change on every render by design; this component is not memoized by the compiler.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    // The first screen renders before the scroll container is measured (a sensible first guess).
    initialRect: { width: 1000, height: 600 },
  });
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  const columns = showFile ? 6 : 5;

  return (
    <div className="test-list">
      <div className="filters" role="search" aria-label={`Search ${caption.toLowerCase()}`}>
        <label>
          Search
          <input
            type="search"
            value={query}
            placeholder="Title or file"
            onChange={(e) => set({ q: e.target.value })}
            aria-describedby="test-list-count"
          />
        </label>
        <label>
          Status
          <select value={status ?? ''} onChange={(e) => set({ status: e.target.value })}>
            <option value="">Any status ({formatCount(rows.length)})</option>
            {TEST_STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)} ({formatCount(counts[s])})
              </option>
            ))}
          </select>
        </label>
        <p id="test-list-count" className="muted test-list-count" role="status" aria-live="polite">
          {shown.length === rows.length
            ? `${formatCount(rows.length)} tests`
            : `${formatCount(shown.length)} of ${formatCount(rows.length)} tests`}
        </p>
      </div>
      {shown.length === 0 ? (
        <Empty>No test matches this search.</Empty>
      ) : (
        <ScrollRegion ref={scroller} className="test-list-scroll" label={caption}>
          <table className="table test-list-table" aria-rowcount={shown.length + 1}>
            <caption className="visually-hidden">{caption}</caption>
            <colgroup>
              <col className="col-status" />
              <col />
              {showFile ? <col className="col-file" /> : null}
              <col className="col-project" />
              <col className="col-num" />
              <col className="col-num" />
            </colgroup>
            <thead>
              <tr aria-rowindex={1}>
                <th scope="col">Status</th>
                <th scope="col">Test</th>
                {showFile ? <th scope="col">Spec file</th> : null}
                <th scope="col">Project</th>
                <th scope="col" className="num">
                  Retries
                </th>
                <th scope="col" className="num">
                  Duration
                </th>
              </tr>
            </thead>
            <tbody>
              {before > 0 ? (
                <tr aria-hidden="true" className="spacer">
                  <td colSpan={columns} style={{ height: before }} />
                </tr>
              ) : null}
              {items.map((item) => {
                const r = shown[item.index]!;
                const spec = specs[r.spec];
                return (
                  <tr key={r.id} aria-rowindex={item.index + 2} style={{ height: ROW_HEIGHT }}>
                    <td>
                      <StatusBadge status={r.status} label={statusLabel(r.status)} />
                    </td>
                    <td className="cell-truncate" title={r.title}>
                      <Link to={href(PAGES.testCase, { projectId, runId, testCaseId: r.id })}>{r.title}</Link>
                      {r.quarantined ? <span className="badge badge-neutral quarantine">quarantined</span> : null}
                    </td>
                    {showFile ? (
                      <td className="cell-truncate mono" title={spec?.file}>
                        {spec ? <Link to={href(PAGES.spec, { projectId, runId, specId: spec.id })}>{spec.file}</Link> : null}
                      </td>
                    ) : null}
                    <td className="cell-truncate">{r.projectName || '—'}</td>
                    <td className="num">{r.retries}</td>
                    <td className="num">{formatDuration(r.duration)}</td>
                  </tr>
                );
              })}
              {after > 0 ? (
                <tr aria-hidden="true" className="spacer">
                  <td colSpan={columns} style={{ height: after }} />
                </tr>
              ) : null}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </div>
  );
}
