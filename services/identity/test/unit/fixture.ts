/**
 * The identity handler tests' setting: the service wired on a schema of its own and on the unit tier's real Redis
 * (where it raises the auth-cache generations), clients of its three services through the in-memory transport,
 * a Redis reader for the generation keys, and a tenant builder over AdminService.
 */
import { Redis } from 'ioredis';
import { AdminService, AuthService, IdentityService, Role } from '@assay/proto/assay/identity/v1/identity_pb';
import { generationKey } from '@assay/contracts/identity/auth-cache';
import { hashSecret, parseToken } from '@assay/contracts/identity/tokens';
import { fromConnectError } from '@assay/errors';
import { formatCallers } from '@assay/service-kit';
import { inMemoryClient, testContext, testSchema, unitInfra, type TestSchema } from '@assay/testkit';
import { loadIdentityConfig } from '../../src/config';
import { routes } from '../../src/routes';
import { MIGRATIONS_DIR } from '../../src/service';
import { wire, type Wiring } from '../../src/wiring';

export const NOW = new Date('2026-03-10T12:00:00.000Z');

export interface IdentityUnit {
  db: TestSchema;
  w: Wiring;
  admin: ReturnType<typeof inMemoryClient<typeof AdminService>>;
  auth: ReturnType<typeof inMemoryClient<typeof AuthService>>;
  identity: ReturnType<typeof inMemoryClient<typeof IdentityService>>;
  /** The generation identity last raised in Redis for a token / a user (undefined: never raised). */
  generation: { token(id: string): Promise<number | undefined>; user(id: string): Promise<number | undefined> };
  /** An organization with one project and a user of `role` holding a PAT for that project. */
  tenant(role?: Role): Promise<Tenant>;
  close(): Promise<void>;
}

export interface Tenant {
  orgId: string;
  projectId: string;
  userId: string;
  email: string;
  tokenId: string;
  token: string;
}

/** SHA-256 of a token's secret: what the gateway sends AuthService.Authenticate. */
export const secretHashOf = (token: string) => hashSecret(parseToken(token)!);

let counter = 0;

export async function identityUnit(label: string): Promise<IdentityUnit> {
  const db = await testSchema(MIGRATIONS_DIR, label);
  const { redisUrl } = unitInfra();
  const config = loadIdentityConfig({
    INTERNAL_AUTH_TOKEN: 'x'.repeat(32),
    INTERNAL_CALLERS: formatCallers({ gateway: 'g'.repeat(32) }),
    LOG_LEVEL: 'silent',
    REDIS_URL: redisUrl,
  });
  const w = wire(testContext('identity', config, db.pool), { clock: () => NOW });
  const redis = new Redis(redisUrl);
  const read = async (key: string) => {
    const v = await redis.get(key);
    return v === null ? undefined : Number(v);
  };
  const admin = inMemoryClient(AdminService, (router) => routes(router, w));
  return {
    db,
    w,
    admin,
    auth: inMemoryClient(AuthService, (router) => routes(router, w)),
    identity: inMemoryClient(IdentityService, (router) => routes(router, w)),
    generation: { token: (id) => read(generationKey.token(id)), user: (id) => read(generationKey.user(id)) },
    async tenant(role = Role.OWNER) {
      const n = ++counter;
      const orgId = (await admin.createOrg({ name: `Org ${n}` })).id;
      const projectId = (await admin.createProject({ orgId, name: `Project ${n}` })).id;
      const email = `user${n}-${label}@example.test`;
      const userId = (await admin.createUser({ email, name: `User ${n}` })).id;
      await admin.addMember({ orgId, userId, role });
      const t = await admin.createToken({ userId, projectIds: [projectId] });
      return { orgId, projectId, userId, email, tokenId: t.id, token: t.token };
    },
    async close() {
      redis.disconnect();
      await w.close();
      await db.drop();
    },
  };
}

/** What a call that must fail was refused with (reason, message, details). */
export const refused = (call: Promise<unknown>) =>
  call.then(
    () => Promise.reject(new Error('the call succeeded')),
    (err: unknown) => fromConnectError(err),
  );
