/**
 * Tells the gateway's auth cache that facts changed: after a revoke, rotate or role change has committed, the
 * new generation of the token or user is raised in Redis (generations only go up; see
 * @assay/contracts/identity/auth-cache). If Redis cannot be reached the change still holds in the database;
 * cached entries then expire within AUTH_CACHE_TTL_SECONDS, and a gateway without Redis serves nothing anyway.
 */
import type { Redis } from 'ioredis';
import type { Logger } from '@assay/logger';
import { GENERATION_TTL_SECONDS, generationKey, RAISE_GENERATION } from '@assay/contracts/identity/auth-cache';

export interface Generations {
  token(tokenId: string, generation: number): Promise<void>;
  user(userId: string, generation: number): Promise<void>;
}

export function redisGenerations(redis: Redis, logger: Logger): Generations {
  const raise = async (key: string, generation: number) => {
    try {
      await redis.eval(RAISE_GENERATION, 1, key, String(generation), String(GENERATION_TTL_SECONDS));
    } catch (err) {
      logger.warn(
        { err: { message: (err as Error).message } },
        'could not raise an auth-cache generation; cached entries expire on their own',
      );
    }
  };
  return {
    token: (tokenId, generation) => raise(generationKey.token(tokenId), generation),
    user: (userId, generation) => raise(generationKey.user(userId), generation),
  };
}
