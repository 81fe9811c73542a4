/**
 * The `sessions` family (exploratory sessions, spec §3, §4.4; CONTRACT §2, §9): the session read (write field
 * names), the create and update bodies, the path and query parameters and the proto → JSON mapper.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Session } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { DateTime, iso, Nullable, withExamples } from '../common/json';
import { PageQuery } from '../common/pagination';
import {
  CloseStatus,
  LinkedIssueBody,
  LinkedIssueJson,
  linkedIssueJson,
  MemberJson,
  memberJson,
  recordBodies,
  recordStatus,
  RecordStatusSchema,
  recordTrail,
  recordTrailJson,
} from './common';
import { MAX_INT32 } from './values';

const WorkflowState = Type.String({ description: 'project-configured workflow state' });

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
    state: Nullable(WorkflowState),
    estimate: Nullable(Type.Integer({ minimum: 0, description: 'minutes' })),
    tags: Type.Array(Type.String()),
    linkedIssues: Type.Array(LinkedIssueJson),
    status: RecordStatusSchema,
    closedAt: Nullable(DateTime),
    ...recordTrail,
  },
  { $id: 'ExploratorySession', title: 'ExploratorySession' },
);
export type SessionJson = Static<typeof SessionSchema>;

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
    status: recordStatus.fromProto(s.status),
    closedAt: iso(s.closedAt),
    ...recordTrailJson(s),
  };
}

export const SessionParams = Type.Object({ projectId: Type.String(), sessionId: Type.String() });

export const SessionsQuery = Type.Object({ ...PageQuery(), status: Type.Optional(RecordStatusSchema) });

const common = {
  mission: Type.Optional(Type.String({ description: 'rich HTML charter; sanitized before storage' })),
  sessionType: Type.Optional(Type.String()),
  config: Type.Optional(Type.String()),
  environment: Type.Optional(Type.String()),
  state: Type.Optional(WorkflowState),
  estimate: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_INT32, description: 'minutes' })),
  tags: Type.Optional(Type.Array(Type.String())),
  linkedIssues: Type.Optional(LinkedIssueBody),
};

const sessionBodies = recordBodies(
  common,
  {
    releaseId: Type.Optional(Type.String()),
    assigneeUserId: Type.Optional(Type.String({ description: 'user id or e-mail of a member of the organization' })),
  },
  {
    releaseId: Type.Optional(Nullable(Type.String({ description: 'null detaches the release' }))),
    assigneeUserId: Type.Optional(Nullable(Type.String({ description: 'user id or e-mail; null unassigns' }))),
    estimate: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_INT32, description: 'minutes; null clears it' }))),
    status: Type.Optional(CloseStatus('session')),
  },
);
export const CreateSessionBody = withExamples(sessionBodies.create, {
  name: 'Explore the new discount field',
  mission: '<p>Try invalid, expired and stacked discount codes on the checkout page.</p>',
  sessionType: 'exploratory',
  environment: 'staging',
  releaseId: '66a1f0c2e4b0a1b2c3d4e520',
  assigneeUserId: 'ada@example.com',
  estimate: 60,
  tags: ['checkout'],
});
export const UpdateSessionBody = withExamples(sessionBodies.update, { status: 'closed' });
