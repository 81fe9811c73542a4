/** Releases (spec §4.4; CONTRACT §2): create, update (lifecycle fields on update only), get, list. */
import { Type } from '@sinclair/typebox';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { FastifyInstance } from 'fastify';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { PageQuery, page, pagination, type PageQueryValue } from '@assay/contracts/common/pagination';
import { defined, nullableString, ProjectParams } from '@assay/contracts/common/json';
import { CreateReleaseBody, ReleaseSchema, releaseToJson, UpdateReleaseBody, type ReleaseBodyValue } from './schemas';

const ReleaseParams = Type.Object({ projectId: Type.String(), releaseId: Type.String() });

const nullableTime = (v: string | null | undefined) =>
  v === undefined ? undefined : v === null ? {} : { value: timestampFromDate(new Date(v)) };

export default async function releaseRoutes(app: FastifyInstance) {
  app.post(
    '/:projectId/releases',
    {
      config: { idempotent: true },
      schema: {
        tags: ['Manual Tests'],
        summary: 'Create a release',
        params: ProjectParams,
        body: CreateReleaseBody,
        response: { 201: Ok(Type.Ref(ReleaseSchema)) },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params as { projectId: string };
      const b = request.body as ReleaseBodyValue;
      const res = await app.services.manualTesting.createRelease(
        defined({
          projectId,
          name: b.name!,
          description: b.description,
          note: b.note,
          type: b.type,
          parentReleaseId: b.parentReleaseId ?? undefined,
          startDate: b.startDate,
          endDate: b.endDate,
          branch: b.branch,
          environment: b.environment,
          linkedIssues: b.linkedIssues ?? [],
          buildTarget: b.buildTarget,
          testers: b.testers ?? [],
        }),
        request.callOptions(),
      );
      reply.code(201);
      return ok(releaseToJson(res.release!));
    },
  );

  app.get(
    '/:projectId/releases',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'List releases, newest first',
        params: ProjectParams,
        querystring: Type.Object({
          ...PageQuery(),
          search: Type.Optional(Type.String({ description: 'case-insensitive text in the name' })),
          isCompleted: Type.Optional(Type.Boolean()),
        }),
        response: { 200: OkPage(Type.Ref(ReleaseSchema)) },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as PageQueryValue & { search?: string; isCompleted?: boolean };
      const res = await app.services.manualTesting.listReleases(
        defined({ projectId, page: { page: q.page, limit: q.limit }, search: q.search, isCompleted: q.isCompleted }),
        request.callOptions(),
      );
      return page(res.releases.map(releaseToJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );

  app.get(
    '/:projectId/releases/:releaseId',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'Get one release',
        params: ReleaseParams,
        response: { 200: Ok(Type.Ref(ReleaseSchema)) },
      },
    },
    async (request) => {
      const { projectId, releaseId } = request.params as { projectId: string; releaseId: string };
      const res = await app.services.manualTesting.getRelease({ projectId, releaseId }, request.callOptions());
      return ok(releaseToJson(res.release!));
    },
  );

  app.patch(
    '/:projectId/releases/:releaseId',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'Update a release (send only the fields to change)',
        params: ReleaseParams,
        body: UpdateReleaseBody,
        response: { 200: Ok(Type.Ref(ReleaseSchema)) },
      },
    },
    async (request) => {
      const { projectId, releaseId } = request.params as { projectId: string; releaseId: string };
      const b = request.body as ReleaseBodyValue;
      const res = await app.services.manualTesting.updateRelease(
        defined({
          projectId,
          releaseId,
          name: b.name,
          description: b.description,
          note: b.note,
          type: b.type,
          parentReleaseId: nullableString(b.parentReleaseId),
          startDate: b.startDate,
          endDate: b.endDate,
          branch: b.branch,
          environment: b.environment,
          linkedIssues: b.linkedIssues ? { issues: b.linkedIssues } : undefined,
          buildTarget: b.buildTarget,
          testers: b.testers ? { values: b.testers } : undefined,
          isStarted: b.isStarted,
          startedAt: nullableTime(b.startedAt),
          isCompleted: b.isCompleted,
          completedAt: nullableTime(b.completedAt),
        }),
        request.callOptions(),
      );
      return ok(releaseToJson(res.release!));
    },
  );
}
