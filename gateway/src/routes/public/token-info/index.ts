/**
 * GET /{projectId}/token-info (spec §2.2) and GET /token-info (CONTRACT §1): what the presented token is,
 * what it covers, and its rate-limit quotas.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { Ok, ok } from '@assay/contracts/common/envelope';
import type { TokenRecord } from '../../../auth/authenticator';
import type { RateLimits } from '../../../config';

const ProjectRef = Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]) });
const Scope = Type.Union([
  Type.String({ description: 'a permission string (api keys: read, ingest)' }),
  Type.Object({ orgId: Type.String(), projects: Type.Union([Type.Literal('*'), Type.Array(ProjectRef)]) }),
]);
const Quota = Type.Object({ limit: Type.Integer(), windowSeconds: Type.Integer() });
const DateTimeOrNull = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const TokenInfo = Type.Object(
  {
    id: Type.String(),
    type: Type.Union([Type.Literal('pat'), Type.Literal('api_key')]),
    scopes: Type.Array(Scope),
    projectName: Type.Union([Type.String(), Type.Null()], { description: 'the path project, null for a wildcard scope' }),
    expiresAt: DateTimeOrNull,
    createdAt: DateTimeOrNull,
    lastUsed: DateTimeOrNull,
    rateLimits: Type.Object({ reads: Quota, writes: Quota, manualRunCreate: Quota, pdf: Quota, ingest: Quota }),
    project: Type.Optional(
      Type.Object(
        { id: Type.String(), name: Type.String() },
        { description: 'only without a path project, when the token covers exactly one' },
      ),
    ),
  },
  { title: 'TokenInfo' },
);
type TokenInfoValue = Static<typeof TokenInfo>;

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

async function describeToken(app: FastifyInstance, token: TokenRecord, limits: RateLimits, pathProjectId?: string) {
  const window = 60;
  const quota = (limit: number) => ({ limit, windowSeconds: window });
  const res = await app.services.auth.getTokenInfo({ tokenId: token.id, projectId: pathProjectId ?? '' });
  const scopes: TokenInfoValue['scopes'] = [
    ...res.permissions,
    ...res.scopes.map((s) => ({
      orgId: s.orgId,
      projects: s.allProjects ? ('*' as const) : s.projects.map((p) => ({ id: p.id, name: p.name })),
    })),
  ];
  const info: TokenInfoValue = {
    id: token.id,
    type: token.type,
    scopes,
    projectName: pathProjectId ? res.projectName || null : null,
    expiresAt: iso(res.token?.expiresAt),
    createdAt: iso(res.token?.createdAt),
    // The latest recorded use (minute resolution), which includes this request.
    lastUsed: iso(res.token?.lastUsedAt),
    rateLimits: {
      reads: quota(limits.reads),
      writes: quota(limits.writes),
      manualRunCreate: quota(limits.manualRunCreate),
      pdf: quota(limits.pdf),
      ingest: quota(limits.ingest),
    },
  };
  if (!pathProjectId && res.onlyProject) info.project = { id: res.onlyProject.id, name: res.onlyProject.name };
  return info;
}

export default async function tokenInfoRoutes(app: FastifyInstance, opts: { rateLimits: RateLimits }) {
  app.get(
    '/:projectId/token-info',
    {
      schema: {
        tags: ['Token Info'],
        summary: 'Verify the token and show its scopes for a project',
        params: Type.Object({ projectId: Type.String() }),
        response: { 200: Ok(TokenInfo) },
      },
    },
    async (request) =>
      ok(await describeToken(app, request.auth!.token, opts.rateLimits, (request.params as { projectId: string }).projectId)),
  );

  app.get(
    '/token-info',
    {
      config: { auth: 'token' },
      schema: {
        tags: ['Token Info'],
        summary: 'Verify the token (no project)',
        operationId: 'getTokenInfoWithoutProject',
        response: { 200: Ok(TokenInfo) },
      },
    },
    async (request) => ok(await describeToken(app, request.auth!.token, opts.rateLimits)),
  );
}
