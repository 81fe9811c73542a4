/**
 * GET /{projectId}/token-info (spec §2.2) and GET /token-info (CONTRACT §1): what the presented token is, what it
 * covers, and its rate-limit quotas; the shape and its mapping from AuthService.GetTokenInfo.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { GetTokenInfoResponse } from '@assay/proto/assay/identity/v1/identity_pb';
import { iso } from '../common/json';

/** The rate-limit buckets a token's quotas are shown for, each counted per minute. */
export const QUOTA_BUCKETS = ['reads', 'writes', 'manualRunCreate', 'pdf', 'ingest'] as const;
export type QuotaBucket = (typeof QUOTA_BUCKETS)[number];
export const QUOTA_WINDOW_SECONDS = 60;

const ProjectRef = Type.Object({ id: Type.String(), name: Type.Union([Type.String(), Type.Null()]) });
const Scope = Type.Union([
  Type.String({ description: 'a permission string (api keys: read, ingest)' }),
  Type.Object({ orgId: Type.String(), projects: Type.Union([Type.Literal('*'), Type.Array(ProjectRef)]) }),
]);
const Quota = Type.Object({ limit: Type.Integer(), windowSeconds: Type.Integer() });
const DateTimeOrNull = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const TokenInfoSchema = Type.Object(
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
export type TokenInfoJson = Static<typeof TokenInfoSchema>;

export interface TokenInfoInput {
  /** The presented token (as the gateway authenticated it). */
  token: { id: string; type: TokenInfoJson['type'] };
  /** The gateway's configured limit of each bucket. */
  limits: Record<QuotaBucket, number>;
  /** The path project, if the route has one. */
  projectId?: string;
}

export function tokenInfoToJson(res: GetTokenInfoResponse, { token, limits, projectId }: TokenInfoInput): TokenInfoJson {
  const quota = (bucket: QuotaBucket) => ({ limit: limits[bucket], windowSeconds: QUOTA_WINDOW_SECONDS });
  const info: TokenInfoJson = {
    id: token.id,
    type: token.type,
    scopes: [
      ...res.permissions,
      ...res.scopes.map((s) => ({
        orgId: s.orgId,
        projects: s.allProjects ? ('*' as const) : s.projects.map((p) => ({ id: p.id, name: p.name })),
      })),
    ],
    projectName: projectId ? res.projectName || null : null,
    expiresAt: iso(res.token?.expiresAt),
    createdAt: iso(res.token?.createdAt),
    // The latest recorded use (minute resolution), which includes this request.
    lastUsed: iso(res.token?.lastUsedAt),
    rateLimits: {
      reads: quota('reads'),
      writes: quota('writes'),
      manualRunCreate: quota('manualRunCreate'),
      pdf: quota('pdf'),
      ingest: quota('ingest'),
    },
  };
  if (!projectId && res.onlyProject) info.project = { id: res.onlyProject.id, name: res.onlyProject.name };
  return info;
}
