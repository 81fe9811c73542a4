/**
 * Turns an Authorization header into a token record and, for a project path, the caller's live access.
 * Resolutions are cached in Redis for a few seconds (AUTH_CACHE_TTL_SECONDS) so the hot path costs one
 * Redis read; revoking or rotating a token deletes its entries, so revocation holds on the very next
 * request, and a role change clears the user's entries too. A Redis failure degrades to a database read.
 */
import type { Redis } from 'ioredis';
import { AppError } from '@assay/errors';
import type { Logger } from '@assay/logger';
import { bearerToken, hashSecret, parseToken, parseUploadKey } from './tokens';
import type { IdentityStore, ProjectAccess, TokenRecord } from './store';

export interface Authenticated {
  token: TokenRecord;
  secretHash: Buffer;
}

const cacheKey = (hash: Buffer) => `assay:auth:${hash.toString('hex')}`;

export class Authenticator {
  constructor(
    private readonly store: IdentityStore,
    private readonly redis: Redis,
    private readonly ttlSeconds: number,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Bearer token → token record, or 401 UNAUTHORIZED / TOKEN_REVOKED / TOKEN_EXPIRED. */
  async authenticateBearer(authorization: string | undefined): Promise<Authenticated> {
    const token = bearerToken(authorization);
    const secret = token ? parseToken(token) : undefined;
    if (!secret) throw new AppError('UNAUTHORIZED');
    return this.authenticateSecret(secret);
  }

  /** Compatibility upload key (`X-API-Key: trx_production_<hex>`) → token record; api keys only. */
  async authenticateUploadKey(key: string | undefined): Promise<Authenticated> {
    const secret = key ? parseUploadKey(key) : undefined;
    if (!secret) throw new AppError('UNAUTHORIZED');
    const auth = await this.authenticateSecret(secret);
    if (auth.token.type !== 'api_key') throw new AppError('UNAUTHORIZED');
    return auth;
  }

  private async authenticateSecret(secret: string): Promise<Authenticated> {
    const secretHash = hashSecret(secret);
    const token = await this.cached(secretHash, 't', () => this.store.findTokenBySecretHash(secretHash));
    if (!token) throw new AppError('UNAUTHORIZED');
    if (token.revoked) throw new AppError('TOKEN_REVOKED');
    if (token.expiresAt && new Date(token.expiresAt).getTime() <= this.now().getTime()) throw new AppError('TOKEN_EXPIRED');
    void this.store.touchLastUsed(token.id).catch((err) => this.logger.warn({ err }, 'could not record token use'));
    return { token, secretHash };
  }

  /** The caller's access to a project, or undefined when the project does not exist. */
  async projectAccess(auth: Authenticated, projectId: string): Promise<ProjectAccess | undefined> {
    return this.cached(auth.secretHash, `p:${projectId}`, () => this.store.projectAccess(auth.token, projectId));
  }

  /** Forget cached resolutions of these secrets (revoke, rotate, role change). */
  async invalidate(hashes: Buffer[]): Promise<void> {
    if (hashes.length === 0) return;
    await this.redis.del(...hashes.map(cacheKey));
  }

  private async cached<T>(hash: Buffer, field: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    if (this.ttlSeconds === 0) return load();
    const key = cacheKey(hash);
    try {
      const hit = await this.redis.hget(key, field);
      if (hit !== null) return hit === '' ? undefined : (JSON.parse(hit) as T);
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'auth cache read failed; using the database');
      return load();
    }
    const value = await load();
    try {
      await this.redis
        .multi()
        .hset(key, field, value === undefined ? '' : JSON.stringify(value))
        .expire(key, this.ttlSeconds, 'NX')
        .exec();
    } catch {
      // A cache write failure only costs the next request a database read.
    }
    return value;
  }
}
