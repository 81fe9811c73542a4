/**
 * The reports service: ReportsService (request, status), the PDF endpoints on the internal HTTP port
 * (download, synchronous render), the generator and the retention sweeper. `reportsService(config)` is what
 * main.ts runs; tests may start it in-process with another clock.
 */
import path from 'node:path';
import { defineService, type Clock } from '@assay/service-kit';
import type { ReportsConfig } from './config';
import { wire } from './wiring';
import { routes, httpRoutes } from './routes';
import { workers } from './workers';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

export function reportsService(config: ReportsConfig, opts: { clock?: Clock } = {}) {
  return defineService({
    name: 'reports',
    config,
    db: { schema: 'reports', migrationsDir: MIGRATIONS_DIR },
    wire: (ctx) => wire(ctx, opts),
    routes,
    http: httpRoutes,
    workers,
  });
}
