/**
 * GET /{projectId}/token-info (spec §2.2) and GET /token-info (CONTRACT §1): what the presented token is,
 * what it covers, and its rate-limit quotas (the shape and its mapping: @assay/contracts/identity/token-info).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';
import { ProjectParams } from '@assay/contracts/common/json';
import { TokenInfoSchema, tokenInfoToJson } from '@assay/contracts/identity/token-info';
import type { RateLimits } from '../../../config';
import { typed } from '../../typed';

const TAGS = ['Token Info'];

export default async function tokenInfoRoutes(fastify: FastifyInstance, opts: { rateLimits: RateLimits }) {
  const app = typed(fastify);

  const describe = async (request: FastifyRequest, projectId?: string) => {
    const { token, session } = request.auth!;
    // A web app session is described as what it acts as: a PAT of its user over every project of their organizations.
    const res = await app.services.auth.getTokenInfo(
      session ? { sessionId: session.id, projectId: projectId ?? '' } : { tokenId: token.id, projectId: projectId ?? '' },
    );
    return ok(tokenInfoToJson(res, { token, limits: opts.rateLimits, projectId }));
  };

  app.get(
    '/:projectId/token-info',
    {
      schema: {
        tags: TAGS,
        summary: 'Verify the token and show its scopes for a project',
        params: ProjectParams,
        response: { 200: Ok(TokenInfoSchema) },
      },
    },
    async (request) => describe(request, request.params.projectId),
  );

  app.get(
    '/token-info',
    {
      config: { auth: 'token' },
      schema: {
        tags: TAGS,
        summary: 'Verify the token (no project)',
        operationId: 'getTokenInfoWithoutProject',
        response: { 200: Ok(TokenInfoSchema) },
      },
    },
    async (request) => describe(request),
  );
}
