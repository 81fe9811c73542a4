/** Exploratory session shapes: the spec §4.4 bodies and the read (write field names, CONTRACT §9). */
import { Type, type Static } from '@sinclair/typebox';
import type { Session } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
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

export const SessionSchema = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    mission: Type.String({ description: 'charter, sanitized HTML' }),
    sessionType: Nullable(Type.String()),
    config: Nullable(Type.String()),
    environment: Nullable(Type.String()),
    releaseId: Nullable(Type.String()),
    assignee: Nullable(MemberJson),
    state: Nullable(Type.String({ description: 'project-configured workflow state' })),
    estimate: Nullable(Type.Integer({ minimum: 0, description: 'minutes' })),
    tags: Type.Array(Type.String()),
    linkedIssues: Type.Array(LinkedIssueJson),
    status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
    closedAt: Nullable(DateTime),
    metadata: Type.Object({ lastModifiedBy: Person }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'ExploratorySession', title: 'ExploratorySession' },
);
type SessionJson = Static<typeof SessionSchema>;

export function sessionToJson(s: Session): SessionJson {
  return {
    _id: s.id,
    name: s.name,
    mission: s.mission,
    sessionType: s.sessionType ?? null,
    config: s.config ?? null,
    environment: s.environment ?? null,
    releaseId: s.releaseId ?? null,
    assignee: s.assignee ? memberJson(s.assignee) : null,
    state: s.state ?? null,
    estimate: s.estimate ?? null,
    tags: s.tags,
    linkedIssues: s.linkedIssues.map(linkedIssueJson),
    status: s.status as 'open' | 'closed',
    closedAt: iso(s.closedAt),
    metadata: { lastModifiedBy: personJson(s.lastModifiedBy) },
    createdAt: isoRequired(s.createdAt),
    updatedAt: isoRequired(s.updatedAt),
  };
}

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' });

const common = {
  mission: Type.Optional(Type.String({ description: 'rich HTML charter; sanitized before storage' })),
  sessionType: Type.Optional(Type.String()),
  config: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  state: Type.Optional(Type.String({ description: 'project-configured workflow state' })),
  estimate: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, description: 'minutes' })),
  tags: Type.Optional(Type.Array(Type.String())),
  linkedIssues: Type.Optional(LinkedIssueBody),
};

export const CreateSessionBody = Type.Object(
  {
    name: Name,
    ...common,
    releaseId: Type.Optional(Type.String()),
    assigneeUserId: Type.Optional(Type.String({ description: 'user id or e-mail of a member of the organization' })),
  },
  { additionalProperties: false },
);

export const UpdateSessionBody = Type.Object(
  {
    name: Type.Optional(Name),
    ...common,
    releaseId: Type.Optional(Nullable(Type.String({ description: 'null detaches the release' }))),
    assigneeUserId: Type.Optional(Nullable(Type.String({ description: 'user id or e-mail; null unassigns' }))),
    status: Type.Optional(Type.Literal('closed', { description: '`closed` closes the session' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export interface SessionBodyValue {
  name?: string;
  mission?: string;
  sessionType?: string;
  config?: string;
  environment?: string;
  releaseId?: string | null;
  assigneeUserId?: string | null;
  state?: string;
  estimate?: number;
  tags?: string[];
  linkedIssues?: Static<typeof LinkedIssueBody>;
  status?: 'closed';
}
