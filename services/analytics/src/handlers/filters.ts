/** The `filters` family's RPC (GET /filters and /filters/{kind}): the values seen in the project's runs. */
import type { ServiceImpl } from '@connectrpc/connect';
import type { AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { filterValues } from '../store/filters';
import type { Reads } from '../wiring';

export function filtersHandlers({ model }: Reads): Pick<ServiceImpl<typeof AnalyticsService>, 'getFilters'> {
  return {
    async getFilters(req) {
      const state = await model.current(req.projectId);
      if (!state) return {};
      const v = await filterValues(model.pool, state.key);
      return { environments: v.environment, branches: v.branch, developers: v.developer, tags: v.tag };
    },
  };
}
