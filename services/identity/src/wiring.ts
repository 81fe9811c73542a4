/** What the identity handlers and workers share: the pool, the auth-cache generations in Redis, the metrics, the clock. */
import { Redis } from 'ioredis';
import type { Pool } from '@assay/db';
import type { Logger } from '@assay/logger';
import { systemClock, type Clock, type ServiceContext } from '@assay/service-kit';
import type { IdentityConfig } from './config';
import { redisGenerations, type Generations } from './domain/generations';
import { identityMetrics, type IdentityMetrics } from './metrics';

export interface Wiring {
  config: IdentityConfig;
  pool: Pool;
  logger: Logger;
  generations: Generations;
  metrics: IdentityMetrics;
  clock: Clock;
  close(): Promise<void>;
}

export function wire(ctx: ServiceContext<IdentityConfig>, overrides: { clock?: Clock } = {}): Wiring {
  // No offline queue: when Redis is down a raise fails at once (and is logged) instead of holding the RPC.
  const redis = new Redis(ctx.config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000 });
  redis.on('error', (err) => ctx.logger.debug({ err: { message: err.message } }, 'redis connection error'));
  return {
    config: ctx.config,
    pool: ctx.pool,
    logger: ctx.logger,
    generations: redisGenerations(redis, ctx.logger),
    metrics: identityMetrics(ctx.metrics.registry),
    clock: overrides.clock ?? systemClock,
    close: async () => redis.disconnect(),
  };
}
