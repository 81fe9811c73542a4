/**
 * The runs service definition (used by main.ts and by tests that start their own copy): Connect routes
 * (RunsService, RunsAdminService), ingestion on the internal HTTP port, and three workers: the outbox relay,
 * the incomplete-run sweeper and the manual-case linker.
 *
 * Kafka is not a readiness dependency here (no `kafka: true`): ingestion keeps working while the broker is
 * down because events wait in the outbox; the relay publishes them when it returns.
 */
import path from 'node:path';
import type { ConnectRouter } from '@connectrpc/connect';
import { createKafkaBus } from '@assay/events';
import { RunsAdminService, RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { createRpcClient, type ServiceContext, type ServiceDefinition } from '@assay/service-kit';
import type { RunsConfig } from './config';
import { createRuntime, type WiredRuntime } from './runtime';
import { ingestRoutes } from './http';
import { runHandlers } from './handlers/runs';
import { bundleHandlers } from './handlers/bundle';
import { adminHandlers, ruleHandlers } from './handlers/rules';
import { usageHandlers } from './handlers/usage';
import { outboxRelay } from './workers/outbox-relay';
import { sweeper } from './workers/sweeper';
import { linker } from './workers/linker';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

export function runsService(config: RunsConfig, opts: { now?: () => Date } = {}): ServiceDefinition<RunsConfig> {
  const runtimes = new WeakMap<ServiceContext<RunsConfig>, WiredRuntime>();
  const rtOf = (ctx: ServiceContext<RunsConfig>) => {
    const existing = runtimes.get(ctx);
    if (existing) return existing;
    const rt = createRuntime({ pool: ctx.pool, config: ctx.config, logger: ctx.logger, now: opts.now });
    runtimes.set(ctx, rt);
    return rt;
  };
  return {
    name: 'runs',
    config,
    db: { schema: 'runs', migrationsDir: MIGRATIONS_DIR },
    routes(router: ConnectRouter, ctx) {
      const rt = rtOf(ctx);
      router.service(RunsService, { ...runHandlers(rt), ...bundleHandlers(rt), ...ruleHandlers(rt), ...usageHandlers(rt) });
      router.service(RunsAdminService, adminHandlers(rt));
    },
    http: (app, ctx) => ingestRoutes(app, rtOf(ctx)),
    workers(ctx) {
      const rt = rtOf(ctx);
      const bus = createKafkaBus({ brokers: ctx.config.KAFKA_BROKERS, clientId: 'runs-outbox', logger: ctx.logger });
      const relay = outboxRelay({ pool: ctx.pool, bus, logger: ctx.logger, pollMs: ctx.config.OUTBOX_POLL_INTERVAL_MS });
      rt.onEvents(() => relay.kick());
      const manualTesting = createRpcClient(ManualTestingService, {
        baseUrl: ctx.config.MANUAL_TESTING_URL,
        internalToken: ctx.config.INTERNAL_AUTH_TOKEN,
      });
      const link = linker(rt, manualTesting);
      rt.onLinks(() => link.kick());
      const busCloser = { name: 'kafka-client', start: async () => undefined, stop: () => bus.close() };
      return [busCloser, relay, sweeper(rt), link];
    },
  };
}
