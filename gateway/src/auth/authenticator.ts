/**
 * Turns an Authorization header into a token and, for a project path, the caller's live access, through the
 * identity service (AuthService). The gateway never sends a token: it checks its shape and checksum, then asks
 * by SHA-256 of the secret.
 *
 * Answers are cached in Redis for AUTH_CACHE_TTL_SECONDS, each with the generations of the token and its user
 * it was read at. An entry is reused only while those generations are still the current ones in Redis, which
 * identity raises once a revocation, rotation or role change has committed (and the gateway raises to what it
 * loaded, never lowering one). So an entry read before a revocation can be written after it, but never reused:
 * revocation holds on the very next request, and permission follows the current role. A Redis failure
 * degrades to asking identity every time.
 */
import type { Redis } from 'ioredis';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import { AppError } from '@assay/errors';
import type { Logger } from '@assay/logger';
import { AuthService, Role as RoleEnum, TokenType as TokenTypeEnum } from '@assay/proto/assay/identity/v1/identity_pb';
import type { Role, TokenType } from '@assay/service-kit';
import { bearerToken, hashSecret, parseToken, parseUploadKey } from '@assay/contracts/identity/tokens';
import { GENERATION_TTL_SECONDS, generationKey, RAISE_GENERATION, READ_CACHED_AUTH } from '@assay/contracts/identity/auth-cache';

export interface TokenRecord {
  id: string;
  type: TokenType;
  userId: string | null;
  projectId: string | null;
  allProjects: boolean;
  expiresAt: string | null;
  createdAt: string | null;
  revoked: boolean;
}

export interface ProjectAccess {
  projectId: string;
  projectName: string;
  orgId: string;
  /** The user's live role in the project's organization; null when not a member (or an api key). */
  role: Role | null;
  userName: string | null;
  userEmail: string | null;
  /** Whether the token's scope names this project (or is the wildcard / the api key's project). */
  covered: boolean;
}

export interface Authenticated {
  token: TokenRecord;
  secretHash: Buffer;
  /** Whose requests share the per-token rate limits: the token (by its secret's hash), or for a web app session the user. */
  rateKey: string;
  /** Set for a web app session (cookie), unset for a token. */
  session?: { id: string; userName: string; userEmail: string };
  /** The path project's access, when the token's cache read found it valid too (one Redis round trip for both). */
  prefetched?: { projectId: string; access: ProjectAccess | null };
}

/** The cookie of a web app session: 32 random bytes, base64url (what identity issues). */
export const SESSION_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A cache entry: the value (null = "does not exist") and the generations it was read at. */
interface Entry<T> {
  v: T | null;
  tid: string;
  uid: string;
  g: [string, string];
}

const ROLES: Partial<Record<RoleEnum, Role>> = {
  [RoleEnum.OWNER]: 'owner',
  [RoleEnum.ADMIN]: 'admin',
  [RoleEnum.MEMBER]: 'member',
  [RoleEnum.VIEWER]: 'viewer',
};

const cacheKey = (hash: Buffer) => `assay:auth:${hash.toString('hex')}`;

/**
 * The per-token rate limits' key of a token (bearer or upload key): its secret's hash, which the request itself
 * gives, so the token's count can go out before the token is read, in authentication's Redis round trip.
 */
export const secretRateKey = (secretHash: Buffer) => `t:${secretHash.toString('hex')}`;

/**
 * The SHA-256 of the secret of a well-formed bearer token in an Authorization header, or undefined. A request's is
 * computed once (`bearerSecretHashOf` in credential.ts), for its rate limit and its authentication.
 */
export function bearerSecretHash(authorization: string | undefined): Buffer | undefined {
  const token = bearerToken(authorization);
  const secret = token ? parseToken(token) : undefined;
  return secret ? hashSecret(secret) : undefined;
}
/** Unknown secrets are cached too (no token to take generations from): a new secret is always a new hash. */
const NO_TOKEN = '-';

/** What identity answered for a cache entry, with the generations it read it at. */
interface Loaded<T> {
  value: T | null;
  tokenId: string;
  userId: string;
  generations: [bigint, bigint];
}

/** The client with READ_CACHED_AUTH defined as a command (sent by its SHA once Redis has the script). */
type CacheRedis = Redis & { readCachedAuth(key: string, ...fields: string[]): Promise<(string | null)[]> };

export class Authenticator {
  /**
   * Entries being loaded from identity, by cache key and field. When an entry expires, every request in flight for
   * it misses at once (at 50 connections, 50 identity calls every AUTH_CACHE_TTL_SECONDS); they share one load.
   */
  private readonly loading = new Map<string, Promise<unknown>>();

  constructor(
    private readonly identity: Client<typeof AuthService>,
    private readonly redis: Redis,
    private readonly ttlSeconds: number,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {
    redis.defineCommand('readCachedAuth', { numberOfKeys: 1, lua: READ_CACHED_AUTH });
  }

  /**
   * Bearer token (its secret's hash, `bearerSecretHash`; undefined for a malformed one) → token record, or 401
   * UNAUTHORIZED / TOKEN_REVOKED / TOKEN_EXPIRED. With the path's
   * `projectId`, the cached access to it is read in the same round trips (`projectAccess` then reuses it).
   */
  async authenticateBearer(secretHash: Buffer | undefined, projectId?: string): Promise<Authenticated> {
    if (!secretHash) throw new AppError('UNAUTHORIZED');
    return this.authenticateSecret(secretHash, projectId);
  }

  /** Compatibility upload key (`X-API-Key: trx_production_<hex>`) → token record; api keys only. */
  async authenticateUploadKey(key: string | undefined): Promise<Authenticated> {
    const secret = key ? parseUploadKey(key) : undefined;
    if (!secret) throw new AppError('UNAUTHORIZED');
    const auth = await this.authenticateSecret(hashSecret(secret));
    if (auth.token.type !== 'api_key') throw new AppError('UNAUTHORIZED');
    return auth;
  }

  private async authenticateSecret(secretHash: Buffer, projectId?: string): Promise<Authenticated> {
    // Redis failing here is handled (and logged) by `cached`, which reads again.
    const hits = projectId ? await this.readCache<unknown>(secretHash, [`p:${projectId}`, 't']).catch(() => undefined) : undefined;
    const token = await this.cached(secretHash, 't', hits, async () => {
      const res = await this.identity.authenticate({ secretHash });
      if (!res.found || !res.token) return { value: null, tokenId: NO_TOKEN, userId: '', generations: [0n, 0n] };
      const t = res.token;
      const record: TokenRecord = {
        id: t.id,
        type: t.type === TokenTypeEnum.API_KEY ? 'api_key' : 'pat',
        userId: t.userId || null,
        projectId: t.projectId || null,
        allProjects: t.allProjects,
        expiresAt: t.expiresAt ? timestampDate(t.expiresAt).toISOString() : null,
        createdAt: t.createdAt ? timestampDate(t.createdAt).toISOString() : null,
        revoked: t.revoked,
      };
      return { value: record, tokenId: t.id, userId: t.userId, generations: [res.generations?.token ?? 0n, res.generations?.user ?? 0n] };
    });
    if (!token) throw new AppError('UNAUTHORIZED');
    if (token.revoked) throw new AppError('TOKEN_REVOKED');
    if (token.expiresAt && new Date(token.expiresAt).getTime() <= this.now().getTime()) throw new AppError('TOKEN_EXPIRED');
    const access = projectId ? (hits?.get(`p:${projectId}`) as ProjectAccess | null | undefined) : undefined;
    return {
      token,
      secretHash,
      rateKey: secretRateKey(secretHash),
      ...(access !== undefined && { prefetched: { projectId: projectId!, access } }),
    };
  }

  /**
   * A web app session cookie → the session's user, acting as a PAT of that user over every project of their
   * organizations. Not cached: signing out (here or everywhere) holds on the very next request.
   */
  async authenticateSession(cookie: string | undefined): Promise<Authenticated> {
    if (!cookie || !SESSION_SHAPE.test(cookie)) throw new AppError('UNAUTHORIZED', 'Sign in again');
    const secretHash = hashSecret(cookie);
    const res = await this.identity.getSession({ sessionHash: secretHash });
    const s = res.session;
    if (!res.found || !s) throw new AppError('UNAUTHORIZED', 'The session has ended; sign in again');
    const token: TokenRecord = {
      id: `session:${s.id}`,
      type: 'pat',
      userId: s.userId,
      projectId: null,
      allProjects: true,
      expiresAt: s.expiresAt ? timestampDate(s.expiresAt).toISOString() : null,
      createdAt: s.createdAt ? timestampDate(s.createdAt).toISOString() : null,
      revoked: false,
    };
    return { token, secretHash, rateKey: `user:${s.userId}`, session: { id: s.id, userName: s.userName, userEmail: s.userEmail } };
  }

  /** The caller's access to a project, or undefined when the project does not exist. */
  async projectAccess(auth: Authenticated, projectId: string): Promise<ProjectAccess | undefined> {
    if (auth.prefetched?.projectId === projectId) return auth.prefetched.access ?? undefined;
    const access = await this.cached(auth.secretHash, `p:${projectId}`, undefined, async () => {
      const res = await this.identity.getProjectAccess(
        auth.session ? { userId: auth.token.userId ?? '', projectId } : { tokenId: auth.token.id, projectId },
      );
      const a = res.access;
      const value: ProjectAccess | null =
        res.found && a
          ? {
              projectId: a.projectId,
              projectName: a.projectName,
              orgId: a.orgId,
              role: ROLES[a.role] ?? null,
              userName: a.userName || null,
              userEmail: a.userEmail || null,
              covered: a.covered,
            }
          : null;
      return {
        value,
        tokenId: auth.token.id,
        userId: auth.token.userId ?? '',
        generations: [res.generations?.token ?? 0n, res.generations?.user ?? 0n],
      };
    });
    return access ?? undefined;
  }

  /**
   * The still-valid cache entries among `fields` of a secret's hash, with the current generations of their token
   * and user, in one round trip (READ_CACHED_AUTH). A field absent from the answer must be loaded. Throws when
   * Redis fails.
   */
  private async readCache<T>(hash: Buffer, fields: string[]): Promise<Map<string, T | null>> {
    const valid = new Map<string, T | null>();
    if (this.ttlSeconds === 0) return valid;
    const answer = await (this.redis as CacheRedis).readCachedAuth(cacheKey(hash), ...fields);
    const [genToken, genUser] = answer.slice(fields.length);
    for (const [i, field] of fields.entries()) {
      const hit = answer[i];
      if (hit === null || hit === undefined) continue;
      const e = JSON.parse(hit) as Entry<T>;
      if (e.tid === NO_TOKEN || (genToken === e.g[0] && (e.uid === '' || genUser === e.g[1]))) valid.set(field, e.v);
    }
    return valid;
  }

  /** `field` from `hits` (a `readCache` already made), else from the cache, else `load`ed and cached. */
  private async cached<T>(
    hash: Buffer,
    field: string,
    hits: Map<string, unknown> | undefined,
    load: () => Promise<Loaded<T>>,
  ): Promise<T | null> {
    if (this.ttlSeconds === 0) return (await load()).value;
    const key = cacheKey(hash);
    try {
      const found = hits ?? (await this.readCache<T>(hash, [field]));
      if (found.has(field)) return found.get(field) as T | null;
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'auth cache read failed; asking identity');
      return (await load()).value;
    }
    const flight = `${key}\n${field}`;
    const shared = this.loading.get(flight);
    if (shared) {
      // The load in flight ends with its entry written: read as any hit is, it is taken only while its generations
      // are still the current ones (a revocation committed after identity answered raised them). Otherwise, or when
      // it was not written, this request asks identity itself.
      await shared.catch(() => undefined);
      const found = await this.readCache<T>(hash, [field]).catch(() => undefined);
      if (found?.has(field)) return found.get(field) as T | null;
    }
    const loading = this.loadAndStore(key, field, load);
    this.loading.set(flight, loading);
    try {
      return await loading;
    } finally {
      if (this.loading.get(flight) === loading) this.loading.delete(flight);
    }
  }

  /** `load`, and its answer written to the cache with the generations it was read at. */
  private async loadAndStore<T>(key: string, field: string, load: () => Promise<Loaded<T>>): Promise<T | null> {
    const loaded = await load();
    const entry: Entry<T> = {
      v: loaded.value,
      tid: loaded.tokenId,
      uid: loaded.userId,
      g: [String(loaded.generations[0]), String(loaded.generations[1])],
    };
    try {
      const multi = this.redis.multi();
      if (loaded.tokenId !== NO_TOKEN) {
        // Make the generations current if nobody has yet (raising never lowers what identity set after a change).
        multi.eval(RAISE_GENERATION, 1, generationKey.token(loaded.tokenId), entry.g[0], String(GENERATION_TTL_SECONDS));
        if (loaded.userId) multi.eval(RAISE_GENERATION, 1, generationKey.user(loaded.userId), entry.g[1], String(GENERATION_TTL_SECONDS));
      }
      await multi.hset(key, field, JSON.stringify(entry)).expire(key, this.ttlSeconds, 'NX').exec();
    } catch {
      // A cache write failure only costs the next request a call to identity.
    }
    return loaded.value;
  }
}
