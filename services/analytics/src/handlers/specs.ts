/** The `specs` family's RPC (GET /specs): spec files over a rolling window, paged. */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { ListSpecsResponseSchema, type AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { pageInfo, paging } from '@assay/service-kit';
import { windowDays } from '../domain/days';
import { specRow, windowOf } from '../domain/view';
import { cacheKey } from '../cache';
import { listSpecs } from '../store/specs';
import type { Reads } from '../wiring';

export function specsHandlers({ model, cache }: Reads): Pick<ServiceImpl<typeof AnalyticsService>, 'listSpecs'> {
  return {
    async listSpecs(req) {
      const days = windowDays(req.days);
      const p = paging(req.page);
      const state = await model.current(req.projectId);
      const until = state?.asOf ?? model.today();
      const window = windowOf(until - days + 1, until);
      if (!state) return { window, specs: [], page: pageInfo(p, 0) };
      return cache.get(cacheKey(state, 'specs', days, p.page, p.limit), async () => {
        const res = await listSpecs(model.pool, state.key, days, p);
        return create(ListSpecsResponseSchema, { window, specs: res.specs.map(specRow), page: pageInfo(p, res.total) });
      });
    },
  };
}
