import type { ConnectRouter } from '@connectrpc/connect';
import { AnalyticsAdminService, AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import type { Wiring } from './wiring';
import { analyticsHandlers } from './handlers/analytics';
import { adminHandlers } from './handlers/admin';

export function routes(router: ConnectRouter, w: Wiring): void {
  router.service(AnalyticsService, analyticsHandlers(w.model, w.slow, w.cache));
  router.service(AnalyticsAdminService, adminHandlers(w.model));
}
