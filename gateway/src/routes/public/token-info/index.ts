/**
 * GET /{projectId}/token-info (spec §2.2) and GET /token-info (CONTRACT §1): what the presented token is,
 * what it covers, and its rate-limit quotas.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '../../../schemas/envelope';
import type { IdentityStore, ScopeProject, TokenRecord } from '../../../identity/store';
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

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function groupByOrg(projects: ScopeProject[]) {
  const byOrg = new Map<string, { id: string; name: string }[]>();
  for (const p of projects) {
    const list = byOrg.get(p.orgId) ?? [];
    list.push({ id: p.projectId, name: p.projectName });
    byOrg.set(p.orgId, list);
  }
  return [...byOrg].map(([orgId, list]) => ({ orgId, projects: list }));
}

async function describeToken(store: IdentityStore, token: TokenRecord, limits: RateLimits, pathProjectId?: string) {
  const window = 60;
  const rateLimits = {
    reads: { limit: limits.reads, windowSeconds: window },
    writes: { limit: limits.writes, windowSeconds: window },
    manualRunCreate: { limit: limits.manualRunCreate, windowSeconds: window },
    pdf: { limit: limits.pdf, windowSeconds: window },
    ingest: { limit: limits.ingest, windowSeconds: window },
  };
  let scopes: TokenInfoValue['scopes'];
  let covered: ScopeProject[];
  if (token.type === 'pat' && token.allProjects) {
    const orgIds = await store.userOrgIds(token.userId!);
    scopes = orgIds.map((orgId) => ({ orgId, projects: '*' as const }));
    covered = await store.projectsOfOrgs(orgIds);
  } else {
    covered = await store.scopeProjects(token);
    scopes = [...(token.type === 'api_key' ? ['read', 'ingest'] : []), ...groupByOrg(covered)];
  }
  const wildcard = token.type === 'pat' && token.allProjects;
  const info: TokenInfoValue = {
    id: token.id,
    type: token.type,
    scopes,
    projectName: pathProjectId && !wildcard ? (covered.find((p) => p.projectId === pathProjectId)?.projectName ?? null) : null,
    expiresAt: iso(token.expiresAt),
    createdAt: iso(token.createdAt),
    // The latest recorded use (minute resolution), which includes this request; read fresh, not from cache.
    lastUsed: iso(await store.touchLastUsed(token.id).then(() => store.lastUsedAt(token.id))),
    rateLimits,
  };
  if (!pathProjectId && covered.length === 1) info.project = { id: covered[0]!.projectId, name: covered[0]!.projectName };
  return info;
}

export default async function tokenInfoRoutes(app: FastifyInstance, opts: { store: IdentityStore; rateLimits: RateLimits }) {
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
      ok(await describeToken(opts.store, request.auth!.token, opts.rateLimits, (request.params as { projectId: string }).projectId)),
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
    async (request) => ok(await describeToken(opts.store, request.auth!.token, opts.rateLimits)),
  );
}
