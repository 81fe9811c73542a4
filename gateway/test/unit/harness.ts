/**
 * The gateway's fast tier: `buildApp` exactly as the server builds it (every policy plugin, real Redis), with
 * in-memory clients of the services: each test gives the handlers it needs (Connect ServiceImpl parts) and sees
 * what the service was asked, through `app.inject`. Authentication goes through an in-memory identity that
 * knows the tokens this harness issues.
 */
import { randomBytes } from 'node:crypto';
import type { DescService } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { createClient, createRouterTransport, type Client, type ServiceImpl } from '@connectrpc/connect';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { connectRedis } from '../../src/redis';
import { createLogger } from '@assay/logger';
import { AccountService, AuthService, Role, TokenType } from '@assay/proto/assay/identity/v1/identity_pb';
import { AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { ReportsService } from '@assay/proto/assay/reports/v1/reports_pb';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { WebhooksService } from '@assay/proto/assay/webhooks/v1/webhooks_pb';
import { handlerInterceptors, type Principal } from '@assay/service-kit';
import { decodePrincipal, PRINCIPAL_HEADER } from '@assay/service-kit';
import { issueSecret } from '@assay/contracts/identity/tokens';
import { SHARED_GATEWAY_RATE_LIMITS_ENV, unitInfra } from '@assay/testkit';
import { buildApp } from '../../src/app';
import { Authenticator } from '../../src/auth/authenticator';
import { loadGatewayConfig } from '../../src/config';
import type { ServiceClients } from '../../src/plugins/app/services';

export type RoleName = 'owner' | 'admin' | 'member' | 'viewer';

const ROLE: Record<RoleName, Role> = { owner: Role.OWNER, admin: Role.ADMIN, member: Role.MEMBER, viewer: Role.VIEWER };
const id = () => randomBytes(12).toString('hex');

/** Handlers of the services a test stubs; a method a test did not give answers UNIMPLEMENTED. */
export interface Stubs {
  account?: Partial<ServiceImpl<typeof AccountService>>;
  /** AuthService methods beside the harness's own authentication (e.g. getTokenInfo). */
  auth?: Partial<ServiceImpl<typeof AuthService>>;
  manualTesting?: Partial<ServiceImpl<typeof ManualTestingService>>;
  runs?: Partial<ServiceImpl<typeof RunsService>>;
  analytics?: Partial<ServiceImpl<typeof AnalyticsService>>;
  webhooks?: Partial<ServiceImpl<typeof WebhooksService>>;
  reports?: Partial<ServiceImpl<typeof ReportsService>>;
}

/** One service call as the stub saw it: the request and the principal the gateway forwarded. */
export interface Call {
  method: string;
  request: unknown;
  principal: Principal | undefined;
}

export interface Caller {
  token: string;
  role: RoleName | 'api_key';
  principal: Principal;
}

export interface Harness {
  app: FastifyInstance;
  projectId: string;
  orgId: string;
  /** Every service call made so far, in order. */
  calls: Call[];
  /** A token of a user with `role` in the project's organization (or the project's api key). */
  caller(role: RoleName | 'api_key'): Caller;
  /** `app.inject` with `Authorization: Bearer <caller's token>` (owner by default). */
  request(opts: InjectOptions & { as?: RoleName | 'api_key' }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

function recording<S extends DescService>(service: S, impl: Partial<ServiceImpl<S>> | undefined, calls: Call[]): Client<S> {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(impl ?? {})) {
    wrapped[name] = (req: unknown, ctx: { requestHeader: Headers }) => {
      calls.push({ method: name, request: req, principal: decodePrincipal(ctx.requestHeader.get(PRINCIPAL_HEADER)) });
      return (fn as (r: unknown, c: unknown) => unknown)(req, ctx);
    };
  }
  const transport = createRouterTransport((router) => router.service(service, wrapped as Partial<ServiceImpl<S>>), {
    router: { interceptors: handlerInterceptors(createLogger('stub', 'silent')) },
  });
  return createClient(service, transport);
}

/** An in-memory AuthService that knows the callers it issued, all in one organization and project. */
function identityStub(orgId: string, projectId: string) {
  const byHash = new Map<string, { tokenId: string; userId: string; role: RoleName | 'api_key' }>();
  const byId = new Map<string, { userId: string; role: RoleName | 'api_key' }>();
  const impl: Partial<ServiceImpl<typeof AuthService>> = {
    async authenticate(req) {
      const t = byHash.get(Buffer.from(req.secretHash).toString('hex'));
      if (!t) return { found: false };
      const apiKey = t.role === 'api_key';
      return {
        found: true,
        token: {
          id: t.tokenId,
          type: apiKey ? TokenType.API_KEY : TokenType.PAT,
          userId: apiKey ? '' : t.userId,
          projectId: apiKey ? projectId : '',
          createdAt: timestampFromDate(new Date()),
        },
        generations: { token: 0n, user: 0n },
      };
    },
    async getProjectAccess(req) {
      const t = byId.get(req.tokenId);
      if (!t || req.projectId !== projectId) return { found: false };
      const apiKey = t.role === 'api_key';
      return {
        found: true,
        access: {
          projectId,
          projectName: 'Unit project',
          orgId,
          role: apiKey ? Role.UNSPECIFIED : ROLE[t.role as RoleName],
          userName: apiKey ? '' : `User ${t.role}`,
          userEmail: apiKey ? '' : `${t.role}@example.test`,
          covered: true,
        },
        generations: { token: 0n, user: 0n },
      };
    },
  };
  const issue = (role: RoleName | 'api_key') => {
    const secret = issueSecret();
    const tokenId = id();
    const userId = id();
    byHash.set(secret.hash.toString('hex'), { tokenId, userId, role });
    byId.set(tokenId, { userId, role });
    return { token: secret.token, tokenId, userId };
  };
  return { impl, issue };
}

export async function gatewayHarness(stubs: Stubs = {}, env: Record<string, string> = {}): Promise<Harness> {
  const { redisUrl } = unitInfra();
  const orgId = id();
  const projectId = id();
  const calls: Call[] = [];
  const identity = identityStub(orgId, projectId);
  const config = loadGatewayConfig({
    REDIS_URL: redisUrl,
    INTERNAL_AUTH_TOKEN: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    // Every test of a run comes from one address: the limits themselves are tested in test/e2e/rate-limits.
    RATE_LIMITS: SHARED_GATEWAY_RATE_LIMITS_ENV,
    ...env,
  });
  const logger = createLogger('gateway', 'silent');
  const redis = connectRedis(redisUrl);
  redis.on('error', () => undefined);
  await new Promise((resolve) => redis.once('ready', resolve));
  const auth = recording(AuthService, { ...identity.impl, ...stubs.auth }, []);
  const clients: ServiceClients = {
    auth,
    account: recording(AccountService, stubs.account, calls),
    manualTesting: recording(ManualTestingService, stubs.manualTesting, calls),
    runs: recording(RunsService, stubs.runs, calls),
    analytics: recording(AnalyticsService, stubs.analytics, calls),
    webhooks: recording(WebhooksService, stubs.webhooks, calls),
    reports: recording(ReportsService, stubs.reports, calls),
    runsHttpUrl: 'http://127.0.0.1:1',
    reportsHttpUrl: 'http://127.0.0.1:1',
    serviceHttp: { internalToken: config.INTERNAL_AUTH_TOKEN, timeoutMs: 2000 },
  };
  const app = await buildApp({
    config,
    logger,
    redis,
    authenticator: new Authenticator(auth, redis, config.AUTH_CACHE_TTL_SECONDS, logger),
    clients,
    healthClients: {},
  });
  await app.ready();
  const callers = new Map<string, Caller>();
  const caller = (role: RoleName | 'api_key'): Caller => {
    let c = callers.get(role);
    if (!c) {
      const t = identity.issue(role);
      const apiKey = role === 'api_key';
      c = {
        token: t.token,
        role,
        principal: {
          tokenId: t.tokenId,
          tokenType: apiKey ? 'api_key' : 'pat',
          userId: apiKey ? null : t.userId,
          userName: apiKey ? null : `User ${role}`,
          userEmail: apiKey ? null : `${role}@example.test`,
          orgId,
          role: apiKey ? null : role,
        },
      };
      callers.set(role, c);
    }
    return c;
  };
  return {
    app,
    projectId,
    orgId,
    calls,
    caller,
    request: ({ as = 'owner', headers, ...opts }) =>
      app.inject({ ...opts, headers: { authorization: `Bearer ${caller(as).token}`, ...headers } }),
    close: async () => {
      await app.close();
      redis.disconnect();
    },
  };
}
