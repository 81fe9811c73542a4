/**
 * The reports service definition: ReportsService (request, status), the PDF endpoints on the internal HTTP
 * port (download, synchronous render), the generator and the retention sweeper. `reportsService(config)` is
 * what `main.ts` runs; tests may start it in-process with another clock.
 */
import type { ServiceContext, ServiceDefinition } from '@assay/service-kit';
import { ReportsService } from '@assay/proto/assay/reports/v1/reports_pb';
import type { ReportsConfig } from './config';
import { createSources } from './domain/collect';
import { reportHandlers } from './handlers/reports';
import { reportRoutes } from './http';
import { reportMetrics } from './metrics';
import type { Runtime } from './runtime';
import { Generator } from './workers/generator';
import { RetentionSweeper } from './workers/sweeper';

export function reportsService(
  config: ReportsConfig,
  migrationsDir: string,
  clock: () => Date = () => new Date(),
): ServiceDefinition<ReportsConfig> {
  let runtime: Runtime | undefined;
  let generator: Generator | undefined;
  // One runtime per process, made on first use (the RPC routes are registered before the workers start).
  const runtimeOf = (ctx: ServiceContext<ReportsConfig>): Runtime =>
    (runtime ??= {
      config,
      pool: ctx.pool,
      logger: ctx.logger,
      metrics: reportMetrics(ctx.metrics.registry),
      sources: createSources({
        analyticsUrl: config.ANALYTICS_URL,
        runsUrl: config.RUNS_URL,
        identityUrl: config.IDENTITY_URL,
        internalToken: config.INTERNAL_AUTH_TOKEN,
        timeoutMs: config.REPORT_GENERATION_TIMEOUT_SECONDS * 1000,
      }),
      now: clock,
      wake: () => generator?.wake(),
    });
  return {
    name: 'reports',
    config,
    db: { schema: 'reports', migrationsDir },
    routes: (router, ctx) => {
      router.service(ReportsService, reportHandlers(runtimeOf(ctx)));
    },
    http: (app, ctx) => reportRoutes(app, runtimeOf(ctx)),
    workers: (ctx) => {
      const rt = runtimeOf(ctx);
      generator = new Generator(rt);
      // Stopped in reverse: the sweeper first, then the generator finishes the reports in hand.
      return [generator, new RetentionSweeper(rt)];
    },
  };
}
