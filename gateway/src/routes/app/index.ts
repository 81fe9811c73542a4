/**
 * The web app's own API at /api/v1/app (CONTRACT §10): sign-in with e-mail and password, accepting an
 * invitation, signing out (here or everywhere), the signed-in account, and the user's personal access tokens;
 * and the run page's compact list of a run's results (./runs.ts). Everything else the app shows comes from the
 * public API with the same session cookie.
 *
 * Sign-in attempts are limited per account (10 per 15 minutes) and per client address (50 per 15 minutes), and
 * a wrong password and an unknown e-mail get the same answer.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { AppError } from '@assay/errors';
import { Ok, ok } from '@assay/contracts/common/envelope';
import {
  AcceptInvitationBody,
  AccountSchema,
  accountToJson,
  AppTokenSchema,
  appTokenToJson,
  CreateAppTokenBody,
  CreatedAppTokenSchema,
  LoginBody,
  TokenParams,
  UseSignInLinkBody,
} from '@assay/contracts/identity/app';
import type { SignedIn } from '@assay/proto/assay/identity/v1/identity_pb';
import { documentErrorResponses } from '../../plugins/app/error-responses';
import { SESSION_COOKIE } from '../../auth/credential';
import { clientIp } from '../../plugins/app/rate-limit';
import { typed } from '../typed';
import appRunRoutes from './runs';

export const APP_PREFIX = '/api/v1/app';
const TAGS = ['App'];
const SESSION = [{ sessionCookie: [] }];
const WINDOW_SECONDS = 15 * 60;

export interface AppApiOptions {
  redis: Redis;
  /** Cookies are `Secure` when the app is served over https. */
  publicUiUrl: string;
}

export default async function appApi(fastify: FastifyInstance, opts: AppApiOptions) {
  const app = typed(fastify);
  fastify.addHook('onRoute', (route) => {
    route.config = { auth: 'session', ...(route.config ?? {}) };
    documentErrorResponses(route);
  });

  const perAccount = new RateLimiterRedis({ storeClient: opts.redis, keyPrefix: 'assay:login:acct', points: 10, duration: WINDOW_SECONDS });
  const perAddress = new RateLimiterRedis({ storeClient: opts.redis, keyPrefix: 'assay:login:ip', points: 50, duration: WINDOW_SECONDS });

  /** Counts one sign-in attempt; 429 with Retry-After once either limit is used up. */
  async function attempt(request: FastifyRequest, email: string) {
    try {
      await Promise.all([perAccount.consume(email.trim().toLowerCase()), perAddress.consume(clientIp(request))]);
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        // The page shows the message, not the header: it says how long, in minutes once the wait is a minute or more.
        const minutes = Math.ceil(seconds / 60);
        const wait = seconds < 60 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
        throw new AppError('RATE_LIMIT_EXCEEDED', `Too many sign-in attempts; try again in ${wait}`, {
          headers: { 'Retry-After': String(seconds) },
        });
      }
      throw new AppError('SERVICE_UNAVAILABLE', undefined, { cause: err, headers: { 'Retry-After': '5' } });
    }
  }

  const secure = (request: FastifyRequest) => opts.publicUiUrl.startsWith('https:') || request.protocol === 'https';

  /** Sets the session cookie of a new session and answers the account. */
  async function signIn(request: FastifyRequest, reply: FastifyReply, signedIn: SignedIn) {
    const session = signedIn.session!;
    reply.setCookie(SESSION_COOKIE, signedIn.sessionId, {
      httpOnly: true,
      sameSite: 'lax',
      secure: secure(request),
      path: '/',
      expires: session.expiresAt ? timestampDate(session.expiresAt) : undefined,
    });
    const account = await app.services.account.getAccount({ userId: session.userId }, request.callOptions());
    return ok(accountToJson(account));
  }

  const clearCookie = (request: FastifyRequest, reply: FastifyReply) =>
    reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: secure(request), path: '/' });

  app.post(
    '/login',
    {
      config: { auth: 'none', idempotent: false, errors: ['UNAUTHORIZED'] },
      schema: {
        tags: TAGS,
        summary: 'Sign in with e-mail and password (sets the session cookie)',
        security: [],
        body: LoginBody,
        response: { 200: Ok(Type.Ref(AccountSchema)) },
      },
    },
    async (request, reply) => {
      await attempt(request, request.body.email);
      const res = await app.services.account.login(
        {
          email: request.body.email,
          password: request.body.password,
          userAgent: request.headers['user-agent'] ?? '',
          ip: clientIp(request),
        },
        request.callOptions(),
      );
      if (!res.signedIn) throw new AppError('UNAUTHORIZED', 'Wrong e-mail or password');
      await perAccount.delete(request.body.email.trim().toLowerCase()).catch(() => undefined);
      return signIn(request, reply, res.signedIn);
    },
  );

  app.post(
    '/invitations/accept',
    {
      config: { auth: 'none', idempotent: false, errors: ['NOT_FOUND'] },
      schema: {
        tags: TAGS,
        summary: 'Choose a password with an invitation link and sign in (sets the session cookie)',
        security: [],
        body: AcceptInvitationBody,
        response: { 200: Ok(Type.Ref(AccountSchema)) },
      },
    },
    async (request, reply) => {
      const res = await app.services.account.acceptInvitation(
        {
          token: request.body.token,
          password: request.body.password,
          userAgent: request.headers['user-agent'] ?? '',
          ip: clientIp(request),
        },
        request.callOptions(),
      );
      if (!res.signedIn) throw new AppError('NOT_FOUND', 'This invitation link is unknown, used or expired; ask for a new one');
      return signIn(request, reply, res.signedIn);
    },
  );

  app.post(
    '/sign-in-links/use',
    {
      config: { auth: 'none', idempotent: false, errors: ['NOT_FOUND'] },
      schema: {
        tags: TAGS,
        summary: 'Sign in with a one-time sign-in link (sets the session cookie)',
        security: [],
        body: UseSignInLinkBody,
        response: { 200: Ok(Type.Ref(AccountSchema)) },
      },
    },
    async (request, reply) => {
      const res = await app.services.account.useSignInLink(
        { token: request.body.token, userAgent: request.headers['user-agent'] ?? '', ip: clientIp(request) },
        request.callOptions(),
      );
      if (!res.signedIn) throw new AppError('NOT_FOUND', 'This sign-in link is unknown, used or expired');
      return signIn(request, reply, res.signedIn);
    },
  );

  app.post(
    '/logout',
    {
      schema: {
        tags: TAGS,
        summary: 'Sign out (this session)',
        security: SESSION,
        response: { 200: Ok(Type.Object({ signedOut: Type.Literal(true) })) },
      },
    },
    async (request, reply) => {
      await app.services.account.logout({ sessionHash: request.auth!.secretHash }, request.callOptions());
      clearCookie(request, reply);
      return ok({ signedOut: true as const });
    },
  );

  app.post(
    '/logout-everywhere',
    {
      schema: {
        tags: TAGS,
        summary: 'Sign out everywhere (every session of the account)',
        security: SESSION,
        response: { 200: Ok(Type.Object({ signedOut: Type.Literal(true) })) },
      },
    },
    async (request, reply) => {
      await app.services.account.logoutEverywhere({ userId: request.auth!.token.userId ?? '' }, request.callOptions());
      clearCookie(request, reply);
      return ok({ signedOut: true as const });
    },
  );

  app.get(
    '/me',
    {
      schema: {
        tags: TAGS,
        summary: 'The signed-in user, their organizations (with their role) and projects',
        security: SESSION,
        response: { 200: Ok(Type.Ref(AccountSchema)) },
      },
    },
    async (request) =>
      ok(accountToJson(await app.services.account.getAccount({ userId: request.auth!.token.userId ?? '' }, request.callOptions()))),
  );

  app.get(
    '/tokens',
    {
      schema: {
        tags: TAGS,
        summary: "The signed-in user's personal access tokens, newest first",
        security: SESSION,
        response: { 200: Ok(Type.Array(Type.Ref(AppTokenSchema))) },
      },
    },
    async (request) => {
      const res = await app.services.account.listAccountTokens({ userId: request.auth!.token.userId ?? '' }, request.callOptions());
      return ok(res.tokens.map(appTokenToJson));
    },
  );

  app.post(
    '/tokens',
    {
      schema: {
        tags: TAGS,
        summary: 'Create a personal access token (the secret is in this answer only)',
        security: SESSION,
        body: CreateAppTokenBody,
        response: { 201: Ok(CreatedAppTokenSchema) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const res = await app.services.account.createAccountToken(
        { userId: request.auth!.token.userId ?? '', name: body.name, expiresInDays: body.expiresInDays, projectIds: body.projects },
        request.callOptions(),
      );
      reply.code(201);
      return ok({ token: appTokenToJson(res.token!), secret: res.secret });
    },
  );

  app.post(
    '/tokens/:tokenId/rotate',
    {
      config: { idempotent: false },
      schema: {
        tags: TAGS,
        summary: 'Rotate a token: a new secret (in this answer only); the old one stops working at once',
        security: SESSION,
        params: TokenParams,
        response: { 200: Ok(CreatedAppTokenSchema) },
      },
    },
    async (request) => {
      const res = await app.services.account.rotateAccountToken(
        { userId: request.auth!.token.userId ?? '', tokenId: request.params.tokenId },
        request.callOptions(),
      );
      return ok({ token: appTokenToJson(res.token!), secret: res.secret });
    },
  );

  app.delete(
    '/tokens/:tokenId',
    {
      schema: {
        tags: TAGS,
        summary: 'Revoke a token (it stops working at once)',
        security: SESSION,
        params: TokenParams,
        response: { 200: Ok(Type.Object({ id: Type.String(), revoked: Type.Literal(true) })) },
      },
    },
    async (request) => {
      await app.services.account.revokeAccountToken(
        { userId: request.auth!.token.userId ?? '', tokenId: request.params.tokenId },
        request.callOptions(),
      );
      return ok({ id: request.params.tokenId, revoked: true as const });
    },
  );

  await fastify.register(appRunRoutes);
}
