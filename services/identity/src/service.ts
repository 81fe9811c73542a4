/**
 * The identity service: organizations, users, memberships, projects and tokens, and the web app's accounts,
 * sessions and links, whose retention sweeper is its one worker (schema `identity`).
 * AdminService answers only the admin CLI's credential; AuthService serves the gateway; IdentityService the
 * other services. `identityService(config)` is what main.ts runs; tests may start it with another clock.
 */
import path from 'node:path';
import { AdminService } from '@assay/proto/assay/identity/v1/identity_pb';
import { defineService, type Clock } from '@assay/service-kit';
import type { IdentityConfig } from './config';
import { routes } from './routes';
import { wire } from './wiring';
import { retentionSweeper } from './workers/sweeper';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

export function identityService(config: IdentityConfig, opts: { clock?: Clock } = {}) {
  return defineService({
    name: 'identity',
    config,
    db: { schema: 'identity', migrationsDir: MIGRATIONS_DIR },
    adminServices: [AdminService],
    wire: (ctx) => wire(ctx, opts),
    routes,
    // Stopped in reverse: the sweeper, then the Redis connection.
    workers: (w) => [{ name: 'redis', start: async () => undefined, stop: () => w.close() }, retentionSweeper(w)],
  });
}
