import type { ConnectRouter, ServiceImpl } from '@connectrpc/connect';
import { AnalyticsAdminService, AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import type { ReadModel } from './read-model';
import type { ReadCache } from './cache';
import type { SlowTests, Wiring } from './wiring';
import { adminHandlers } from './handlers/admin';
import { analyticsHandlers } from './handlers/analytics';
import { dashboardHandlers } from './handlers/dashboard';
import { filtersHandlers } from './handlers/filters';
import { reportDataHandlers } from './handlers/report-data';
import { specsHandlers } from './handlers/specs';
import { explorerHandlers } from './handlers/test-case-explorer';

/** AnalyticsService: one group of methods per public family, and the report data of the reports service. */
export function analyticsServiceHandlers(model: ReadModel, slow: SlowTests, cache: ReadCache): ServiceImpl<typeof AnalyticsService> {
  const r = { model, slow, cache };
  return {
    ...analyticsHandlers(r),
    ...dashboardHandlers(r),
    ...filtersHandlers(r),
    ...specsHandlers(r),
    ...explorerHandlers(r),
    ...reportDataHandlers(r),
  };
}

export function routes(router: ConnectRouter, w: Wiring): void {
  router.service(AnalyticsService, analyticsServiceHandlers(w.model, w.slow, w.cache));
  router.service(AnalyticsAdminService, adminHandlers(w));
}
