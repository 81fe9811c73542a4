/**
 * The webhooks service: the subscriptions RPC, the run-lifecycle consumer (one delivery per matching
 * subscription) and the dispatcher (signed attempts with retries). `webhooksService(config)` is what main.ts
 * runs; tests may start it in-process with another clock.
 */
import path from 'node:path';
import { defineService, type Clock } from '@assay/service-kit';
import type { WebhooksConfig } from './config';
import { routes } from './routes';
import { wire } from './wiring';
import { workers } from './workers';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

export function webhooksService(config: WebhooksConfig, opts: { clock?: Clock } = {}) {
  return defineService({
    name: 'webhooks',
    config,
    db: { schema: 'webhooks', migrationsDir: MIGRATIONS_DIR },
    kafka: true,
    wire: (ctx) => wire(ctx, opts),
    routes,
    workers,
  });
}
