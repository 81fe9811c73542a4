/**
 * What the analytics handlers and workers share: the read model (its pool, the runs client it pulls finished
 * runs' results through, the clock), the answer cache, the slow-test thresholds and the metrics. Tests pass
 * another clock or an in-memory runs client through `overrides`.
 */
import type { Client } from '@connectrpc/connect';
import type { Pool } from '@assay/db';
import type { EventBus } from '@assay/events';
import type { Logger } from '@assay/logger';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { createRpcClient, systemClock, type Clock, type ServiceContext } from '@assay/service-kit';
import type { AnalyticsConfig } from './config';
import { ReadModel } from './read-model';
import { ReadCache } from './cache';
import { analyticsMetrics, type AnalyticsMetrics } from './metrics';

/** A test is slow when its p95 is at least `slowTestMinMs` and at least `slowTestFactor` × the project p50. */
export interface SlowTests {
  slowTestMinMs: number;
  slowTestFactor: number;
}

export interface Wiring {
  config: AnalyticsConfig;
  pool: Pool;
  logger: Logger;
  bus: EventBus;
  clock: Clock;
  model: ReadModel;
  cache: ReadCache;
  metrics: AnalyticsMetrics;
  slow: SlowTests;
}

/** What the AnalyticsService handlers read through. */
export type Reads = Pick<Wiring, 'model' | 'cache' | 'slow'>;

export interface WiringOverrides {
  clock?: Clock;
  runs?: Client<typeof RunsService>;
}

export function wire(ctx: ServiceContext<AnalyticsConfig>, overrides: WiringOverrides = {}): Wiring {
  const { config } = ctx;
  const clock = overrides.clock ?? systemClock;
  // Rebuilds and folds of big runs pull many pages: a generous deadline per page.
  const runs =
    overrides.runs ??
    createRpcClient(RunsService, { baseUrl: config.RUNS_URL, internalToken: config.INTERNAL_AUTH_TOKEN, timeoutMs: 120000 });
  return {
    config,
    pool: ctx.pool,
    logger: ctx.logger,
    bus: ctx.bus!,
    clock,
    model: new ReadModel({
      pool: ctx.pool,
      runs,
      logger: ctx.logger.child({ component: 'read-model' }),
      now: clock,
      batchResults: config.ANALYTICS_REBUILD_BATCH_RESULTS,
    }),
    cache: new ReadCache(config.ANALYTICS_READ_CACHE_ENTRIES),
    metrics: analyticsMetrics(ctx.metrics.registry),
    slow: { slowTestMinMs: config.ANALYTICS_SLOW_TEST_MIN_MS, slowTestFactor: config.ANALYTICS_SLOW_TEST_FACTOR },
  };
}
