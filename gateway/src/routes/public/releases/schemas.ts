/** Release shapes: the spec §4.4 create/update bodies and the read (write field names, CONTRACT §9). */
import { Type, type Static } from '@sinclair/typebox';
import type { Release } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import {
  DateTime,
  iso,
  isoRequired,
  LinkedIssueBody,
  LinkedIssueJson,
  linkedIssueJson,
  MemberJson,
  memberJson,
  Nullable,
  Person,
  personJson,
} from '@assay/contracts/common/json';

const BuildTargetJson = Type.Object({
  platform: Type.Union(['web', 'ios', 'android', 'api'].map((p) => Type.Literal(p))),
  version: Type.Optional(Type.String()),
  buildNumber: Type.Optional(Type.String()),
  source: Type.Optional(Type.String()),
  deployUrl: Type.Optional(Type.String()),
});

export const ReleaseSchema = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    note: Type.String({ description: 'sanitized HTML' }),
    type: Nullable(Type.String()),
    parentReleaseId: Nullable(Type.String()),
    depth: Type.Integer({ minimum: 1, maximum: 3, description: '1 = top level' }),
    startDate: Nullable(Type.String()),
    endDate: Nullable(Type.String()),
    branch: Nullable(Type.String()),
    environment: Nullable(Type.String()),
    linkedIssues: Type.Array(LinkedIssueJson),
    buildTarget: Nullable(BuildTargetJson),
    testers: Type.Array(MemberJson),
    isStarted: Type.Boolean(),
    startedAt: Nullable(DateTime),
    isCompleted: Type.Boolean(),
    completedAt: Nullable(DateTime),
    metadata: Type.Object({ lastModifiedBy: Person }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Release', title: 'Release' },
);
type ReleaseJson = Static<typeof ReleaseSchema>;

export function releaseToJson(r: Release): ReleaseJson {
  const b = r.buildTarget;
  return {
    _id: r.id,
    name: r.name,
    description: r.description,
    note: r.note,
    type: r.type ?? null,
    parentReleaseId: r.parentReleaseId ?? null,
    depth: r.depth,
    startDate: r.startDate ?? null,
    endDate: r.endDate ?? null,
    branch: r.branch ?? null,
    environment: r.environment ?? null,
    linkedIssues: r.linkedIssues.map(linkedIssueJson),
    buildTarget: b
      ? {
          platform: b.platform as 'web' | 'ios' | 'android' | 'api',
          ...(b.version !== undefined ? { version: b.version } : {}),
          ...(b.buildNumber !== undefined ? { buildNumber: b.buildNumber } : {}),
          ...(b.source !== undefined ? { source: b.source } : {}),
          ...(b.deployUrl !== undefined ? { deployUrl: b.deployUrl } : {}),
        }
      : null,
    testers: r.testers.map(memberJson),
    isStarted: r.isStarted,
    startedAt: iso(r.startedAt),
    isCompleted: r.isCompleted,
    completedAt: iso(r.completedAt),
    metadata: { lastModifiedBy: personJson(r.lastModifiedBy) },
    createdAt: isoRequired(r.createdAt),
    updatedAt: isoRequired(r.updatedAt),
  };
}

const IsoDate = Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })], {
  description: 'ISO 8601 date (YYYY-MM-DD) or date-time',
});

const BuildTargetBody = Type.Object(
  {
    platform: Type.String({ description: 'web, ios, android or api (any letter case)' }),
    version: Type.Optional(Type.String()),
    buildNumber: Type.Optional(Type.String()),
    source: Type.Optional(Type.String()),
    deployUrl: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const common = {
  description: Type.Optional(Type.String()),
  note: Type.Optional(Type.String({ description: 'rich HTML; sanitized before storage' })),
  type: Type.Optional(Type.String({ description: 'project-configured release type' })),
  startDate: Type.Optional(IsoDate),
  endDate: Type.Optional(IsoDate),
  branch: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  linkedIssues: Type.Optional(LinkedIssueBody),
  buildTarget: Type.Optional(BuildTargetBody),
  testers: Type.Optional(Type.Array(Type.String(), { description: 'user ids (or e-mails) of members of the organization' })),
};

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });

export const CreateReleaseBody = Type.Object(
  { name: Name, ...common, parentReleaseId: Type.Optional(Type.String({ description: 'nesting at most 3 levels' })) },
  { additionalProperties: false },
);

export const UpdateReleaseBody = Type.Object(
  {
    name: Type.Optional(Name),
    ...common,
    parentReleaseId: Type.Optional(Nullable(Type.String({ description: 'move under this release (nesting ≤ 3); null: to the top' }))),
    isStarted: Type.Optional(Type.Boolean()),
    startedAt: Type.Optional(Nullable(DateTime)),
    isCompleted: Type.Optional(Type.Boolean()),
    completedAt: Type.Optional(Nullable(DateTime)),
  },
  { additionalProperties: false, minProperties: 1 },
);

export interface ReleaseBodyValue {
  name?: string;
  description?: string;
  note?: string;
  type?: string;
  parentReleaseId?: string | null;
  startDate?: string;
  endDate?: string;
  branch?: string;
  environment?: string;
  linkedIssues?: Static<typeof LinkedIssueBody>;
  buildTarget?: Static<typeof BuildTargetBody>;
  testers?: string[];
  isStarted?: boolean;
  startedAt?: string | null;
  isCompleted?: boolean;
  completedAt?: string | null;
}
