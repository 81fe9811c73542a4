/**
 * The `releases` family (spec §4.4; CONTRACT §2, §9): the release read (write field names), the create and
 * update bodies, the path and query parameters, the platform enum map and the mappers both ways.
 */
import { Type, type Static } from '@sinclair/typebox';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { Platform, type BuildTargetSchema, type Release } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { enumMap } from '../common/enums';
import { DateTime, iso, Nullable, withExamples } from '../common/json';
import { PageQuery } from '../common/pagination';
import {
  LinkedIssueBody,
  LinkedIssueJson,
  linkedIssueJson,
  literals,
  MemberJson,
  memberJson,
  recordBodies,
  recordTrail,
  recordTrailJson,
  spelled,
} from './common';
import { MAX_RELEASE_DEPTH, PLATFORMS, type PlatformName } from './values';

export const platform = enumMap<PlatformName, Platform>([
  ['web', Platform.WEB],
  ['ios', Platform.IOS],
  ['android', Platform.ANDROID],
  ['api', Platform.API],
]);

const buildTargetFields = {
  version: Type.Optional(Type.String()),
  buildNumber: Type.Optional(Type.String()),
  source: Type.Optional(Type.String()),
  deployUrl: Type.Optional(Type.String()),
};

const BuildTargetJson = Type.Object({ platform: literals(PLATFORMS), ...buildTargetFields });

export const ReleaseSchema = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    note: Type.String({ description: 'sanitized HTML' }),
    type: Nullable(Type.String()),
    parentReleaseId: Nullable(Type.String()),
    depth: Type.Integer({ minimum: 1, maximum: MAX_RELEASE_DEPTH, description: '1 = top level' }),
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
    ...recordTrail,
  },
  { $id: 'Release', title: 'Release' },
);
export type ReleaseJson = Static<typeof ReleaseSchema>;

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
          platform: platform.fromProto(b.platform),
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
    ...recordTrailJson(r),
  };
}

export const ReleaseParams = Type.Object({ projectId: Type.String(), releaseId: Type.String() });

export const ReleasesQuery = Type.Object({
  ...PageQuery(),
  search: Type.Optional(Type.String({ description: 'case-insensitive text in the name' })),
  isCompleted: Type.Optional(Type.Boolean()),
});

const IsoDate = Type.Union([Type.String({ format: 'date' }), Type.String({ format: 'date-time' })], {
  description: 'ISO 8601 date (YYYY-MM-DD) or date-time',
});

const BuildTargetBody = Type.Object(
  {
    platform: Type.String({ description: `${PLATFORMS.slice(0, -1).join(', ')} or ${PLATFORMS[PLATFORMS.length - 1]} (any letter case)` }),
    ...buildTargetFields,
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

const releaseBodies = recordBodies(
  common,
  { parentReleaseId: Type.Optional(Type.String({ description: `nesting at most ${MAX_RELEASE_DEPTH} levels` })) },
  {
    parentReleaseId: Type.Optional(
      Nullable(Type.String({ description: `move under this release (nesting ≤ ${MAX_RELEASE_DEPTH}); null: to the top` })),
    ),
    isStarted: Type.Optional(Type.Boolean()),
    startedAt: Type.Optional(Nullable(DateTime)),
    isCompleted: Type.Optional(Type.Boolean()),
    completedAt: Type.Optional(Nullable(DateTime)),
  },
);
export const CreateReleaseBody = withExamples(releaseBodies.create, {
  name: 'Release 4.2',
  description: 'Spring checkout redesign',
  type: 'minor',
  startDate: '2026-03-02',
  endDate: '2026-03-16',
  branch: 'release/4.2',
  environment: 'staging',
  linkedIssues: [
    { provider: 'jira', displayId: 'SHOP-142', url: 'https://jira.example.com/browse/SHOP-142', title: 'Discount codes are applied twice' },
  ],
  buildTarget: {
    platform: 'web',
    version: '4.2.0',
    buildNumber: '1842',
    source: 'github-actions',
    deployUrl: 'https://staging.example.com',
  },
  testers: ['66a1f0c2e4b0a1b2c3d4e530'],
});
export const UpdateReleaseBody = withExamples(releaseBodies.update, { isStarted: true, startedAt: '2026-03-02T09:00:00.000Z' });

/** A body's build target → proto (the platform in any letter case; one that names nothing → UNSPECIFIED). */
export function buildTargetToProto(b: Static<typeof BuildTargetBody> | undefined): MessageInitShape<typeof BuildTargetSchema> | undefined {
  return b && { ...b, platform: spelled(platform, b.platform) };
}

/** JSON null → present-but-empty NullableTimestamp; a date-time → its value; absent → absent. */
export const nullableTime = (v: string | null | undefined) =>
  v === undefined ? undefined : v === null ? {} : { value: timestampFromDate(new Date(v)) };
