/**
 * The auth cache (auth/authenticator.ts) against a real Redis, with an in-memory identity that counts what it is
 * asked: a project route's token and project access come from one cache read once cached, and any generation
 * raise (identity's revoke, rotate or role change) sends both back to identity.
 */
import { randomBytes } from 'node:crypto';
import { createClient, createRouterTransport } from '@connectrpc/connect';
import { Redis } from 'ioredis';
import { createLogger } from '@assay/logger';
import { AuthService, Role, TokenType } from '@assay/proto/assay/identity/v1/identity_pb';
import { GENERATION_TTL_SECONDS, generationKey, RAISE_GENERATION } from '@assay/contracts/identity/auth-cache';
import { issueSecret } from '@assay/contracts/identity/tokens';
import { unitInfra } from '@assay/testkit';
import { Authenticator, bearerSecretHash } from '../../src/auth/authenticator';

const id = () => randomBytes(12).toString('hex');
const tokenId = id();
const userId = id();
const projectId = id();
const secret = issueSecret();
const asked = { authenticate: 0, getProjectAccess: 0 };
let role = Role.MEMBER;
const generations = { token: 1n, user: 1n };
/** Identity's view of the token, and gates its two reads wait on (what it read is what it answers). */
let revoked = false;
let gate: Promise<void> = Promise.resolve();
let accessGate: Promise<void> = Promise.resolve();

const identity = createClient(
  AuthService,
  createRouterTransport((router) =>
    router.service(AuthService, {
      async authenticate(req) {
        asked.authenticate++;
        if (Buffer.from(req.secretHash).toString('hex') !== secret.hash.toString('hex')) return { found: false };
        const read = { token: { id: tokenId, type: TokenType.PAT, userId, revoked }, generations: { ...generations } };
        await gate;
        return { found: true, ...read };
      },
      async getProjectAccess() {
        asked.getProjectAccess++;
        const read = {
          found: true,
          access: { projectId, projectName: 'P', orgId: id(), role, covered: true },
          generations: { ...generations },
        };
        await accessGate;
        return read;
      },
    }),
  ),
);

let redis: Redis;
let auth: Authenticator;
beforeAll(async () => {
  redis = new Redis(unitInfra().redisUrl, { maxRetriesPerRequest: 1 });
  auth = new Authenticator(identity, redis, 60, createLogger('test', 'silent'));
});
afterAll(() => redis.quit());
beforeEach(() => {
  asked.authenticate = 0;
  asked.getProjectAccess = 0;
});

/** What a project route does: authenticate with the path's project, then authorize. */
async function projectRequest() {
  const a = await auth.authenticateBearer(bearerSecretHash(`Bearer ${secret.token}`), projectId);
  return { token: a.token, access: await auth.projectAccess(a, projectId) };
}

/** Closes a gate (`set` installs it); the function returned opens it again for good. */
function gated(set: (g: Promise<void>) => void): () => void {
  let open!: () => void;
  set(new Promise((r) => (open = r)));
  return () => {
    set(Promise.resolve());
    open();
  };
}

/** Waits until `done` holds, then 50 ms more for the other requests to reach the load in flight. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 50));
}

const raise = (key: string, to: bigint) => redis.eval(RAISE_GENERATION, 1, key, String(to), String(GENERATION_TTL_SECONDS));

describe('auth cache', () => {
  it('asks identity once; later requests read the token and the project access from the cache', async () => {
    const first = await projectRequest();
    expect(first.token.id).toBe(tokenId);
    expect(first.access?.role).toBe('member');
    expect(asked).toEqual({ authenticate: 1, getProjectAccess: 1 });
    for (let i = 0; i < 3; i++) expect(await projectRequest()).toEqual(first);
    expect(asked).toEqual({ authenticate: 1, getProjectAccess: 1 });
  });

  it.each([
    ['token', () => generationKey.token(tokenId), 'token' as const],
    ['user', () => generationKey.user(userId), 'user' as const],
  ])('a raised %s generation sends both reads back to identity, and the new role holds at once', async (_label, key, which) => {
    await projectRequest();
    role = Role.VIEWER;
    generations[which] += 1n;
    await raise(key(), generations[which]);
    asked.authenticate = 0;
    asked.getProjectAccess = 0;
    expect((await projectRequest()).access?.role).toBe('viewer');
    expect(asked).toEqual({ authenticate: 1, getProjectAccess: 1 });
    await projectRequest();
    expect(asked).toEqual({ authenticate: 1, getProjectAccess: 1 });
    role = Role.MEMBER;
  });

  it('caches an unknown secret as unknown (401 without asking identity again)', async () => {
    const stranger = issueSecret();
    for (let i = 0; i < 2; i++)
      await expect(auth.authenticateBearer(bearerSecretHash(`Bearer ${stranger.token}`), projectId)).rejects.toMatchObject({
        reason: 'UNAUTHORIZED',
      });
    expect(asked.authenticate).toBe(1);
  });
  it('requests that miss together ask identity once (an expired entry: every request in flight misses at once)', async () => {
    await redis.del(`assay:auth:${secret.hash.toString('hex')}`);
    // Identity answers slowly, as a real call takes milliseconds while the others arrive.
    const [openToken, openAccess] = [gated((g) => (gate = g)), gated((g) => (accessGate = g))];
    const all = Promise.all(Array.from({ length: 10 }, () => projectRequest()));
    await until(() => asked.authenticate > 0);
    openToken();
    await until(() => asked.getProjectAccess > 0);
    openAccess();
    const answers = await all;
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]!.access?.role).toBe('member');
    expect(asked).toEqual({ authenticate: 1, getProjectAccess: 1 });
  });

  it('a request that joined a load asks identity itself when a generation was raised meanwhile (a revocation holds)', async () => {
    await redis.del(`assay:auth:${secret.hash.toString('hex')}`);
    const open = gated((g) => (gate = g));
    const bearer = `Bearer ${secret.token}`;
    const first = auth.authenticateBearer(bearerSecretHash(bearer));
    await until(() => asked.authenticate > 0);
    // The token is revoked while identity's first answer is on its way: identity raises its generation.
    revoked = true;
    generations.token += 1n;
    await raise(generationKey.token(tokenId), generations.token);
    const second = auth.authenticateBearer(bearerSecretHash(bearer));
    await new Promise((r) => setTimeout(r, 50)); // it missed the cache and joined the load in flight
    open();
    try {
      // The first request started before the revocation; the second after it, so it must not pass.
      expect((await first).token.id).toBe(tokenId);
      await expect(second).rejects.toMatchObject({ reason: 'TOKEN_REVOKED' });
      expect(asked.authenticate).toBe(2);
    } finally {
      revoked = false;
    }
  });
});
