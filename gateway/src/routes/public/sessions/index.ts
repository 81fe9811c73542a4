/** Exploratory sessions (spec §3, §4.4; CONTRACT §2): create, update (`status: closed` closes), get, list. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { defined, nullable, ProjectParams } from '@assay/contracts/common/json';
import { page, pageOf, pagination } from '@assay/contracts/common/pagination';
import { recordStatus, toProtoIf } from '@assay/contracts/manual-testing/common';
import {
  CreateSessionBody,
  SessionParams,
  SessionSchema,
  SessionsQuery,
  sessionToJson,
  UpdateSessionBody,
} from '@assay/contracts/manual-testing/sessions';
import { typed } from '../../typed';

const TAGS = ['Manual Tests'];

export default async function sessionRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.post(
    '/:projectId/sessions',
    {
      config: { idempotent: true },
      schema: {
        tags: TAGS,
        summary: 'Create an exploratory session',
        params: ProjectParams,
        body: CreateSessionBody,
        response: { 201: Ok(Type.Ref(SessionSchema)) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const res = await app.services.manualTesting.createSession(
        defined({
          projectId: request.params.projectId,
          name: b.name,
          mission: b.mission,
          sessionType: b.sessionType,
          config: b.config,
          environment: b.environment,
          releaseId: b.releaseId,
          assigneeUserId: b.assigneeUserId,
          state: b.state,
          estimate: b.estimate,
          tags: b.tags ?? [],
          linkedIssues: b.linkedIssues ?? [],
        }),
        request.callOptions(),
      );
      reply.code(201);
      return ok(sessionToJson(res.session!));
    },
  );

  app.get(
    '/:projectId/sessions',
    {
      schema: {
        tags: TAGS,
        summary: 'List exploratory sessions, newest first',
        params: ProjectParams,
        querystring: SessionsQuery,
        response: { 200: OkPage(Type.Ref(SessionSchema)) },
      },
    },
    async (request) => {
      const { status } = request.query;
      const p = pageOf(request.query);
      const res = await app.services.manualTesting.listSessions(
        defined({ projectId: request.params.projectId, page: p, status: toProtoIf(recordStatus, status) }),
        request.callOptions(),
      );
      return page(res.sessions.map(sessionToJson), pagination(p.page, p.limit, Number(res.page?.total ?? 0)));
    },
  );

  app.get(
    '/:projectId/sessions/:sessionId',
    {
      schema: {
        tags: TAGS,
        summary: 'Get one exploratory session',
        params: SessionParams,
        response: { 200: Ok(Type.Ref(SessionSchema)) },
      },
    },
    async (request) => {
      const { projectId, sessionId } = request.params;
      const res = await app.services.manualTesting.getSession({ projectId, sessionId }, request.callOptions());
      return ok(sessionToJson(res.session!));
    },
  );

  app.patch(
    '/:projectId/sessions/:sessionId',
    {
      schema: {
        tags: TAGS,
        summary: 'Update an exploratory session; `status: closed` closes it (other fields sent are applied too)',
        params: SessionParams,
        body: UpdateSessionBody,
        response: { 200: Ok(Type.Ref(SessionSchema)) },
      },
    },
    async (request) => {
      const { projectId, sessionId } = request.params;
      const b = request.body;
      const res = await app.services.manualTesting.updateSession(
        defined({
          projectId,
          sessionId,
          name: b.name,
          mission: b.mission,
          sessionType: b.sessionType,
          config: b.config,
          environment: b.environment,
          releaseId: nullable(b.releaseId),
          assigneeUserId: nullable(b.assigneeUserId),
          state: b.state,
          estimateMinutes: nullable(b.estimate),
          estimate: b.estimate ?? undefined,
          tags: b.tags ? { values: b.tags } : undefined,
          linkedIssues: b.linkedIssues ? { issues: b.linkedIssues } : undefined,
          status: toProtoIf(recordStatus, b.status),
        }),
        request.callOptions(),
      );
      return ok(sessionToJson(res.session!));
    },
  );
}
