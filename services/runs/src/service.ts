/**
 * The runs service: Connect routes (RunsService; RunsAdminService for the admin CLI only), ingestion on the
 * internal HTTP port, and three workers: the outbox relay, the incomplete-run sweeper and the manual-case
 * linker. `runsService(config)` is what main.ts runs; tests may start their own copy with another clock.
 *
 * Kafka is not a readiness dependency here (no `kafka: true`): ingestion keeps working while the broker is
 * down because events wait in the outbox; the relay publishes them when it returns.
 */
import path from 'node:path';
import { RunsAdminService } from '@assay/proto/assay/runs/v1/runs_pb';
import { defineService } from '@assay/service-kit';
import type { RunsConfig } from './config';
import { wire, type Overrides } from './wiring';
import { routes, httpRoutes } from './routes';
import { workers } from './workers';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

export function runsService(config: RunsConfig, overrides: Overrides = {}) {
  return defineService({
    name: 'runs',
    config,
    db: { schema: 'runs', migrationsDir: MIGRATIONS_DIR },
    adminServices: [RunsAdminService],
    wire: (ctx) => wire(ctx, overrides),
    routes,
    http: httpRoutes,
    workers,
  });
}
