/**
 * The `sessions` family (exploratory sessions): create, update (`status: closed` closes the session and the
 * other fields of the same request are applied too), get, list.
 */
import { create } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import {
  RecordStatus,
  SessionSchema,
  type ManualTestingService,
  type Session,
  CreateSessionResponseSchema,
} from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { withTransaction } from '@assay/db';
import { notFound } from '@assay/errors';
import { pageInfo, paging, requireWriter, withIdempotency } from '@assay/service-kit';
import { recordStatus } from '@assay/contracts/manual-testing/common';
import { MAX_RECORD_NAME } from '@assay/contracts/manual-testing/values';
import type { Wiring } from '../wiring';
import { findSession, insertSession, listSessions, updateSession, type SessionFields, type SessionRow } from '../store/sessions';
import { sanitizeRichHtml } from '../domain/html';
import { resolveMember } from '../domain/members';
import { cleanTags, parseLinkedIssues } from '../domain/records';
import { checkName, enumName, Violations } from '../domain/violations';
import { authorOf, checkReleaseRef, member, requireSomeField, trail, ts } from './common';

export function toSession(r: SessionRow): Session {
  return create(SessionSchema, {
    id: r.id,
    name: r.name,
    mission: r.mission,
    sessionType: r.sessionType ?? undefined,
    config: r.config ?? undefined,
    environment: r.environment ?? undefined,
    releaseId: r.releaseId ?? undefined,
    assignee: member(r.assignee),
    state: r.state ?? undefined,
    estimate: r.estimate ?? undefined,
    tags: r.tags,
    linkedIssues: r.linkedIssues,
    status: recordStatus.toProto(r.status),
    closedAt: ts(r.closedAt),
    ...trail(r),
  });
}

function checkEstimate(estimate: number | undefined, v: Violations): void {
  if (estimate !== undefined && (!Number.isInteger(estimate) || estimate < 0))
    v.add('body.estimate', 'must be a whole number of minutes, 0 or more');
}

type SessionRpcs = Pick<ServiceImpl<typeof ManualTestingService>, 'createSession' | 'updateSession' | 'getSession' | 'listSessions'>;

export function sessionHandlers({ pool, members, clock }: Wiring): SessionRpcs {
  return {
    async createSession(req, ctx: HandlerContext) {
      const caller = requireWriter(ctx);
      const v = new Violations();
      checkName(req.name, MAX_RECORD_NAME, 'body.name', v);
      checkEstimate(req.estimate, v);
      const assignee = await resolveMember(members, caller.orgId, req.assigneeUserId, 'body.assigneeUserId', v);
      const fields: SessionFields = {
        name: req.name,
        mission: sanitizeRichHtml(req.mission ?? ''),
        sessionType: req.sessionType ?? null,
        config: req.config ?? null,
        environment: req.environment ?? null,
        releaseId: req.releaseId ?? null,
        assignee,
        state: req.state ?? null,
        estimate: req.estimate ?? null,
        tags: cleanTags(req.tags),
        linkedIssues: parseLinkedIssues(req.linkedIssues, 'body.linkedIssues', v),
        status: 'open',
        closedAt: null,
      };
      v.throwIfAny();
      return withIdempotency(pool, ctx, CreateSessionResponseSchema, async (c) => {
        await checkReleaseRef(c, req.projectId, fields.releaseId);
        const id = await insertSession(c, req.projectId, fields, authorOf(caller));
        return { session: toSession((await findSession(c, req.projectId, id))!) };
      });
    },

    async updateSession(req, ctx: HandlerContext) {
      const caller = requireWriter(ctx);
      // A gateway older than estimate_minutes sends only the number.
      const estimate = req.estimateMinutes ? (req.estimateMinutes.value ?? null) : req.estimate;
      requireSomeField([
        req.name,
        req.mission,
        req.sessionType,
        req.config,
        req.environment,
        req.releaseId,
        req.assigneeUserId,
        req.state,
        estimate,
        req.tags,
        req.linkedIssues,
        req.status,
      ]);
      const v = new Violations();
      if (req.name !== undefined) checkName(req.name, MAX_RECORD_NAME, 'body.name', v);
      checkEstimate(estimate ?? undefined, v);
      if (req.status !== undefined && req.status !== RecordStatus.CLOSED)
        v.add('body.status', 'must be closed (closing is the only status change)');
      const assignee =
        req.assigneeUserId === undefined
          ? undefined
          : await resolveMember(members, caller.orgId, req.assigneeUserId.value, 'body.assigneeUserId', v);
      const linkedIssues = req.linkedIssues ? parseLinkedIssues(req.linkedIssues.issues, 'body.linkedIssues', v) : undefined;
      v.throwIfAny();
      const row = await withTransaction(pool, async (c) => {
        const current = await findSession(c, req.projectId, req.sessionId, true);
        if (!current) throw notFound('Session');
        const f: SessionFields = { ...current };
        if (req.name !== undefined) f.name = req.name;
        if (req.mission !== undefined) f.mission = sanitizeRichHtml(req.mission);
        if (req.sessionType !== undefined) f.sessionType = req.sessionType;
        if (req.config !== undefined) f.config = req.config;
        if (req.environment !== undefined) f.environment = req.environment;
        if (req.releaseId !== undefined) {
          f.releaseId = req.releaseId.value ?? null;
          await checkReleaseRef(c, req.projectId, f.releaseId);
        }
        if (assignee !== undefined) f.assignee = assignee;
        if (req.state !== undefined) f.state = req.state;
        if (estimate !== undefined) f.estimate = estimate;
        if (req.tags !== undefined) f.tags = cleanTags(req.tags.values);
        if (linkedIssues !== undefined) f.linkedIssues = linkedIssues;
        if (req.status === RecordStatus.CLOSED && current.status !== 'closed') {
          f.status = 'closed';
          f.closedAt = clock();
        }
        await updateSession(c, current.id, f, authorOf(caller));
        return (await findSession(c, req.projectId, current.id))!;
      });
      return { session: toSession(row) };
    },

    async getSession(req) {
      const row = await findSession(pool, req.projectId, req.sessionId);
      if (!row) throw notFound('Session');
      return { session: toSession(row) };
    },

    async listSessions(req) {
      const v = new Violations();
      const status = req.status === undefined ? undefined : enumName(recordStatus, req.status, 'query.status', v, 'must be open or closed');
      v.throwIfAny();
      const p = paging(req.page);
      const { rows, total } = await listSessions(pool, req.projectId, { status }, p.limit, p.offset);
      return { sessions: rows.map(toSession), page: pageInfo(p, total) };
    },
  };
}
