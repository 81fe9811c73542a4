/** Exploratory sessions (spec §3, §4.4; CONTRACT §2): create, update (`status: closed` closes), get, list. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { PageQuery, page, pagination, type PageQueryValue } from '@assay/contracts/common/pagination';
import { defined, nullableString, ProjectParams } from '@assay/contracts/common/json';
import { CreateSessionBody, SessionSchema, sessionToJson, UpdateSessionBody, type SessionBodyValue } from './schemas';

const SessionParams = Type.Object({ projectId: Type.String(), sessionId: Type.String() });

export default async function sessionRoutes(app: FastifyInstance) {
  app.post(
    '/:projectId/sessions',
    {
      config: { idempotent: true },
      schema: {
        tags: ['Manual Tests'],
        summary: 'Create an exploratory session',
        params: ProjectParams,
        body: CreateSessionBody,
        response: { 201: Ok(Type.Ref(SessionSchema)) },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params as { projectId: string };
      const b = request.body as SessionBodyValue;
      const res = await app.services.manualTesting.createSession(
        defined({
          projectId,
          name: b.name!,
          mission: b.mission,
          sessionType: b.sessionType,
          config: b.config,
          environment: b.environment,
          releaseId: b.releaseId ?? undefined,
          assigneeUserId: b.assigneeUserId ?? undefined,
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
        tags: ['Manual Tests'],
        summary: 'List exploratory sessions, newest first',
        params: ProjectParams,
        querystring: Type.Object({
          ...PageQuery(),
          status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
        }),
        response: { 200: OkPage(Type.Ref(SessionSchema)) },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as PageQueryValue & { status?: string };
      const res = await app.services.manualTesting.listSessions(
        defined({ projectId, page: { page: q.page, limit: q.limit }, status: q.status }),
        request.callOptions(),
      );
      return page(res.sessions.map(sessionToJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );

  app.get(
    '/:projectId/sessions/:sessionId',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'Get one exploratory session',
        params: SessionParams,
        response: { 200: Ok(Type.Ref(SessionSchema)) },
      },
    },
    async (request) => {
      const { projectId, sessionId } = request.params as { projectId: string; sessionId: string };
      const res = await app.services.manualTesting.getSession({ projectId, sessionId }, request.callOptions());
      return ok(sessionToJson(res.session!));
    },
  );

  app.patch(
    '/:projectId/sessions/:sessionId',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'Update an exploratory session; `status: closed` closes it (other fields sent are applied too)',
        params: SessionParams,
        body: UpdateSessionBody,
        response: { 200: Ok(Type.Ref(SessionSchema)) },
      },
    },
    async (request) => {
      const { projectId, sessionId } = request.params as { projectId: string; sessionId: string };
      const b = request.body as SessionBodyValue;
      const res = await app.services.manualTesting.updateSession(
        defined({
          projectId,
          sessionId,
          name: b.name,
          mission: b.mission,
          sessionType: b.sessionType,
          config: b.config,
          environment: b.environment,
          releaseId: nullableString(b.releaseId),
          assigneeUserId: nullableString(b.assigneeUserId),
          state: b.state,
          estimate: b.estimate,
          tags: b.tags ? { values: b.tags } : undefined,
          linkedIssues: b.linkedIssues ? { issues: b.linkedIssues } : undefined,
          status: b.status,
        }),
        request.callOptions(),
      );
      return ok(sessionToJson(res.session!));
    },
  );
}
