/**
 * What the analytics handlers and workers share: the read model (its pool, the runs client it pulls finished
 * runs' results through, the clock), the answer cache, the slow-test thresholds and the metrics.
 */
import type { EventBus } from '@assay/events';
import type { Logger } from '@assay/logger';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { createRpcClient, type ServiceContext } from '@assay/service-kit';
import type { AnalyticsConfig } from './config';
import { ReadModel } from './read-model';
import { ReadCache } from './cache';
import { analyticsMetrics, type AnalyticsMetrics } from './metrics';

export interface Wiring {
  config: AnalyticsConfig;
  logger: Logger;
  bus: EventBus;
  model: ReadModel;
  cache: ReadCache;
  metrics: AnalyticsMetrics;
  slow: { slowTestMinMs: number; slowTestFactor: number };
}

export function wire(ctx: ServiceContext<AnalyticsConfig>, overrides: { now?: () => Date } = {}): Wiring {
  const { config } = ctx;
  // Rebuilds and folds of big runs pull many pages: a generous deadline per page.
  const runs = createRpcClient(RunsService, { baseUrl: config.RUNS_URL, internalToken: config.INTERNAL_AUTH_TOKEN, timeoutMs: 120000 });
  return {
    config,
    logger: ctx.logger,
    bus: ctx.bus!,
    model: new ReadModel({
      pool: ctx.pool,
      runs,
      logger: ctx.logger.child({ component: 'read-model' }),
      now: overrides.now,
      batchResults: config.ANALYTICS_REBUILD_BATCH_RESULTS,
    }),
    cache: new ReadCache(config.ANALYTICS_READ_CACHE_ENTRIES),
    metrics: analyticsMetrics(ctx.metrics.registry),
    slow: { slowTestMinMs: config.ANALYTICS_SLOW_TEST_MIN_MS, slowTestFactor: config.ANALYTICS_SLOW_TEST_FACTOR },
  };
}
