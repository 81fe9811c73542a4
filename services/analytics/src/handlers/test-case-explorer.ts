/** The `test-case-explorer` family's RPC (GET /test-case-explorer): the window's tests, filtered, sorted, paged. */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { ListExplorerTestsResponseSchema, type AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { pageInfo, paging } from '@assay/service-kit';
import { windowDays } from '../domain/days';
import { explorerChoice } from '../domain/explorer';
import { testRow, windowOf } from '../domain/view';
import { cacheKey } from '../cache';
import { listTests } from '../store/test-case-explorer';
import { projectWindow } from '../store/windows';
import type { Reads } from '../wiring';

export function explorerHandlers({ model, cache, slow }: Reads): Pick<ServiceImpl<typeof AnalyticsService>, 'listExplorerTests'> {
  /** slow = p95 at least max(ANALYTICS_SLOW_TEST_MIN_MS, ANALYTICS_SLOW_TEST_FACTOR × the project median). */
  const slowThreshold = (p50: number) => Math.max(slow.slowTestMinMs, Math.round(slow.slowTestFactor * p50));
  return {
    async listExplorerTests(req) {
      const days = windowDays(req.days);
      const choice = explorerChoice(req);
      const p = paging(req.page);
      const state = await model.current(req.projectId);
      const until = state?.asOf ?? model.today();
      const window = windowOf(until - days + 1, until);
      if (!state) return { window, tests: [], page: pageInfo(p, 0), slowThresholdMs: BigInt(slow.slowTestMinMs) };
      return cache.get(cacheKey(state, 'explorer', days, choice.filter, choice.sort, choice.order, p.page, p.limit), async () => {
        const totals = await projectWindow(model.pool, state.key, days);
        const threshold = slowThreshold(totals.p.p50);
        const res = await listTests(model.pool, state.key, days, {
          ...choice,
          limit: p.limit,
          offset: p.offset,
          slowThresholdMs: threshold,
        });
        return create(ListExplorerTestsResponseSchema, {
          window,
          tests: res.tests.map(testRow),
          page: pageInfo(p, res.total),
          slowThresholdMs: BigInt(threshold),
        });
      });
    },
  };
}
