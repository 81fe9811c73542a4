/**
 * The analytics service: AnalyticsService (public figures, report data), AnalyticsAdminService (rebuild; the
 * admin CLI only), the run-lifecycle consumer and the roller. `analyticsService(config)` is what main.ts runs;
 * tests may start it in-process with another clock.
 */
import path from 'node:path';
import { AnalyticsAdminService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { defineService, type Clock } from '@assay/service-kit';
import type { AnalyticsConfig } from './config';
import { wire } from './wiring';
import { routes } from './routes';
import { workers } from './workers';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

export function analyticsService(config: AnalyticsConfig, opts: { clock?: Clock } = {}) {
  return defineService({
    name: 'analytics',
    config,
    db: { schema: 'analytics', migrationsDir: MIGRATIONS_DIR },
    kafka: true,
    adminServices: [AnalyticsAdminService],
    wire: (ctx) => wire(ctx, opts),
    routes,
    workers,
  });
}
