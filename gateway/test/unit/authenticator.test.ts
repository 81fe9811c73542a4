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
import { Authenticator } from '../../src/auth/authenticator';

const id = () => randomBytes(12).toString('hex');
const tokenId = id();
const userId = id();
const projectId = id();
const secret = issueSecret();
const asked = { authenticate: 0, getProjectAccess: 0 };
let role = Role.MEMBER;
const generations = { token: 1n, user: 1n };

const identity = createClient(
  AuthService,
  createRouterTransport((router) =>
    router.service(AuthService, {
      async authenticate(req) {
        asked.authenticate++;
        if (Buffer.from(req.secretHash).toString('hex') !== secret.hash.toString('hex')) return { found: false };
        return { found: true, token: { id: tokenId, type: TokenType.PAT, userId }, generations };
      },
      async getProjectAccess() {
        asked.getProjectAccess++;
        return { found: true, access: { projectId, projectName: 'P', orgId: id(), role, covered: true }, generations };
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
  const a = await auth.authenticateBearer(`Bearer ${secret.token}`, projectId);
  return { token: a.token, access: await auth.projectAccess(a, projectId) };
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
      await expect(auth.authenticateBearer(`Bearer ${stranger.token}`, projectId)).rejects.toMatchObject({ reason: 'UNAUTHORIZED' });
    expect(asked.authenticate).toBe(1);
  });
});
