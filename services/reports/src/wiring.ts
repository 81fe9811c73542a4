/**
 * What the handlers, the HTTP endpoints and the workers of one process share: the pool, the sources of a
 * report's figures (analytics, runs, identity), the metrics, the clock, and a signal that wakes this process's
 * generator when a report is requested. Tests pass another clock or in-memory sources through `overrides`.
 */
import type { Pool } from '@assay/db';
import type { Logger } from '@assay/logger';
import { systemClock, type Clock, type ServiceContext } from '@assay/service-kit';
import type { ReportsConfig } from './config';
import { createSources, type Sources } from './domain/collect';
import { reportMetrics, type ReportMetrics } from './metrics';

export interface Wiring {
  config: ReportsConfig;
  pool: Pool;
  logger: Logger;
  sources: Sources;
  metrics: ReportMetrics;
  clock: Clock;
  /** Wakes this process's generator (a report was just requested). */
  wake(): void;
  onWake(f: () => void): void;
}

export interface WiringOverrides {
  clock?: Clock;
  sources?: Sources;
}

export function wire(ctx: ServiceContext<ReportsConfig>, overrides: WiringOverrides = {}): Wiring {
  const { config } = ctx;
  const listeners: (() => void)[] = [];
  return {
    config,
    pool: ctx.pool,
    logger: ctx.logger,
    metrics: reportMetrics(ctx.metrics.registry),
    sources:
      overrides.sources ??
      createSources({
        analyticsUrl: config.ANALYTICS_URL,
        runsUrl: config.RUNS_URL,
        identityUrl: config.IDENTITY_URL,
        internalToken: config.INTERNAL_AUTH_TOKEN,
        timeoutMs: config.REPORT_GENERATION_TIMEOUT_SECONDS * 1000,
      }),
    clock: overrides.clock ?? systemClock,
    wake: () => listeners.forEach((f) => f()),
    onWake: (f) => listeners.push(f),
  };
}
