/**
 * The web app's own API (`/api/v1/app`, CONTRACT §10): sign-in, invitations, the signed-in account and its
 * personal access tokens. Everything else the app shows comes from the public API, with the same session.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Role, type GetAccountResponse, type TokenSummary } from '@assay/proto/assay/identity/v1/identity_pb';
import { enumMap } from '../common/enums';
import { DateTime, iso, isoRequired, Name, Nullable, withExamples } from '../common/json';

/** Spec §5.2: a token created in the settings expires after 30, 60, 90 or 180 days. */
export const TOKEN_EXPIRY_DAYS = [30, 60, 90, 180] as const;
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;
export const MAX_TOKEN_NAME_LENGTH = 100;

export const role = enumMap<(typeof ROLES)[number], Role>([
  ['owner', Role.OWNER],
  ['admin', Role.ADMIN],
  ['member', Role.MEMBER],
  ['viewer', Role.VIEWER],
]);

export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
  },
  { additionalProperties: false },
);

export const AcceptInvitationBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 128, description: 'the `token` of the invitation link' }),
    password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH }),
  },
  { additionalProperties: false },
);

export const UseSignInLinkBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 128, description: 'the `token` of the sign-in link' }) },
  { additionalProperties: false },
);

export const AccountSchema = Type.Object(
  {
    user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.String() }),
    organizations: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), role: Type.Union(ROLES.map((r) => Type.Literal(r))) })),
    projects: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), organizationId: Type.String(), createdAt: DateTime })),
  },
  {
    $id: 'AppAccount',
    title: 'AppAccount',
    examples: [
      {
        user: { id: '66a1f0c2e4b0a1b2c3d4e530', email: 'ada@example.com', name: 'Ada Lovelace' },
        organizations: [{ id: '66a1f0c2e4b0a1b2c3d4e400', name: 'Example Shop', role: 'admin' }],
        projects: [
          {
            id: '66a1f0c2e4b0a1b2c3d4e500',
            name: 'Web shop',
            organizationId: '66a1f0c2e4b0a1b2c3d4e400',
            createdAt: '2026-01-12T10:00:00.000Z',
          },
        ],
      },
    ],
  },
);
export type AccountJson = Static<typeof AccountSchema>;

export const AppTokenSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    projects: Type.Union([Type.Literal('*'), Type.Array(Type.Object({ id: Type.String(), name: Type.String() }))], {
      description: '`*`: every project of your organizations',
    }),
    createdAt: DateTime,
    expiresAt: Nullable(DateTime),
    lastUsedAt: Nullable(DateTime),
    revoked: Type.Boolean(),
  },
  {
    $id: 'AppToken',
    title: 'AppToken',
    examples: [
      {
        id: '66a1f0c2e4b0a1b2c3d4e800',
        name: 'CI upload',
        projects: [{ id: '66a1f0c2e4b0a1b2c3d4e500', name: 'Web shop' }],
        createdAt: '2026-02-01T08:30:00.000Z',
        expiresAt: '2026-05-02T08:30:00.000Z',
        lastUsedAt: '2026-03-02T09:15:00.000Z',
        revoked: false,
      },
    ],
  },
);
export type AppTokenJson = Static<typeof AppTokenSchema>;

export const CreatedAppTokenSchema = Type.Object(
  { token: Type.Ref(AppTokenSchema), secret: Type.String({ description: 'the token (`svc_pat_…`), shown in this answer only' }) },
  { title: 'CreatedAppToken' },
);

export const CreateAppTokenBody = withExamples(
  Type.Object(
    {
      name: Name(MAX_TOKEN_NAME_LENGTH),
      expiresInDays: Type.Union(
        TOKEN_EXPIRY_DAYS.map((d) => Type.Literal(d)),
        { description: 'days until the token expires' },
      ),
      projects: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 500,
        description: 'project ids of your organizations, or `["*"]` for all of them (present and future)',
      }),
    },
    { additionalProperties: false },
  ),
  { name: 'CI upload', expiresInDays: 90, projects: ['66a1f0c2e4b0a1b2c3d4e500'] },
);

export const TokenParams = Type.Object({ tokenId: Type.String() });

export function accountToJson(a: GetAccountResponse): AccountJson {
  return {
    user: { id: a.userId, email: a.email, name: a.name },
    organizations: a.organizations.map((o) => ({ id: o.id, name: o.name, role: role.fromProto(o.role) })),
    projects: a.projects.map((p) => ({ id: p.id, name: p.name, organizationId: p.orgId, createdAt: isoRequired(p.createdAt) })),
  };
}

export function appTokenToJson(t: TokenSummary): AppTokenJson {
  return {
    id: t.id,
    name: t.name,
    projects: t.allProjects ? '*' : t.projects.map((p) => ({ id: p.id, name: p.name })),
    createdAt: isoRequired(t.createdAt),
    expiresAt: iso(t.expiresAt),
    lastUsedAt: iso(t.lastUsedAt),
    revoked: t.revoked,
  };
}
