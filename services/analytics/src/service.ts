/**
 * The analytics service definition: AnalyticsService (public figures, report data), AnalyticsAdminService
 * (rebuild), the run-lifecycle consumer and the roller. `analyticsService(config)` is what `main.ts` runs; tests
 * may start it in-process with another clock.
 */
import path from 'node:path';
import type { ConnectRouter } from '@connectrpc/connect';
import { AnalyticsAdminService, AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { createRpcClient, type ServiceContext, type ServiceDefinition } from '@assay/service-kit';
import type { AnalyticsConfig } from './config';
import { ReadModel } from './read-model';
import { analyticsHandlers } from './handlers/analytics';
import { adminHandlers } from './handlers/admin';
import { RunEventConsumer } from './workers/consumer';
import { Roller } from './workers/roller';
import { analyticsMetrics } from './metrics';
import { ReadCache } from './cache';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

export function analyticsService(config: AnalyticsConfig, opts: { now?: () => Date } = {}): ServiceDefinition<AnalyticsConfig> {
  const models = new WeakMap<ServiceContext<AnalyticsConfig>, ReadModel>();
  const modelOf = (ctx: ServiceContext<AnalyticsConfig>) => {
    let m = models.get(ctx);
    if (!m) {
      // Rebuilds and folds of big runs pull many pages: a generous deadline per page.
      const runs = createRpcClient(RunsService, {
        baseUrl: ctx.config.RUNS_URL,
        internalToken: ctx.config.INTERNAL_AUTH_TOKEN,
        timeoutMs: 120000,
      });
      m = new ReadModel({
        pool: ctx.pool,
        runs,
        logger: ctx.logger.child({ component: 'read-model' }),
        now: opts.now,
        batchResults: ctx.config.ANALYTICS_REBUILD_BATCH_RESULTS,
      });
      models.set(ctx, m);
    }
    return m;
  };
  return {
    name: 'analytics',
    config,
    db: { schema: 'analytics', migrationsDir: MIGRATIONS_DIR },
    kafka: true,
    routes(router: ConnectRouter, ctx) {
      const model = modelOf(ctx);
      router.service(
        AnalyticsService,
        analyticsHandlers(
          model,
          { slowTestMinMs: ctx.config.ANALYTICS_SLOW_TEST_MIN_MS, slowTestFactor: ctx.config.ANALYTICS_SLOW_TEST_FACTOR },
          new ReadCache(ctx.config.ANALYTICS_READ_CACHE_ENTRIES),
        ),
      );
      router.service(AnalyticsAdminService, adminHandlers(model));
    },
    workers(ctx) {
      const model = modelOf(ctx);
      const metrics = analyticsMetrics(ctx.metrics.registry);
      const consumer = new RunEventConsumer({
        bus: ctx.bus!,
        model,
        logger: ctx.logger.child({ component: 'consumer' }),
        groupId: ctx.config.ANALYTICS_CONSUMER_GROUP,
        onFolded: (runs, results, ms) => metrics.folded(runs, results, ms),
        onEvent: (type, outcome) => metrics.event(type, outcome),
      });
      const roller = new Roller({
        model,
        logger: ctx.logger.child({ component: 'roller' }),
        intervalMs: ctx.config.ANALYTICS_ROLL_INTERVAL_MS,
        rebuildOnEmpty: ctx.config.ANALYTICS_REBUILD_ON_EMPTY,
      });
      // Stopped in reverse: the roller (a rebuild in hand finishes its batch), then the consumer.
      return [consumer, roller];
    },
  };
}
