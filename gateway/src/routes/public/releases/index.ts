/** Releases (spec §4.4; CONTRACT §2): create, update (lifecycle fields on update only), get, list. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { defined, nullable, ProjectParams } from '@assay/contracts/common/json';
import { page, pageOf, pagination } from '@assay/contracts/common/pagination';
import {
  buildTargetToProto,
  CreateReleaseBody,
  nullableTime,
  ReleaseParams,
  ReleaseSchema,
  ReleasesQuery,
  releaseToJson,
  UpdateReleaseBody,
} from '@assay/contracts/manual-testing/releases';
import { typed } from '../../typed';

const TAGS = ['Manual Tests'];

export default async function releaseRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.post(
    '/:projectId/releases',
    {
      config: { idempotent: true },
      schema: {
        tags: TAGS,
        summary: 'Create a release',
        params: ProjectParams,
        body: CreateReleaseBody,
        response: { 201: Ok(Type.Ref(ReleaseSchema)) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const res = await app.services.manualTesting.createRelease(
        defined({
          projectId: request.params.projectId,
          name: b.name,
          description: b.description,
          note: b.note,
          type: b.type,
          parentReleaseId: b.parentReleaseId,
          startDate: b.startDate,
          endDate: b.endDate,
          branch: b.branch,
          environment: b.environment,
          linkedIssues: b.linkedIssues ?? [],
          buildTarget: buildTargetToProto(b.buildTarget),
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
        tags: TAGS,
        summary: 'List releases, newest first',
        params: ProjectParams,
        querystring: ReleasesQuery,
        response: { 200: OkPage(Type.Ref(ReleaseSchema)) },
      },
    },
    async (request) => {
      const q = request.query;
      const p = pageOf(q);
      const res = await app.services.manualTesting.listReleases(
        defined({ projectId: request.params.projectId, page: p, search: q.search, isCompleted: q.isCompleted }),
        request.callOptions(),
      );
      return page(res.releases.map(releaseToJson), pagination(p.page, p.limit, Number(res.page?.total ?? 0)));
    },
  );

  app.get(
    '/:projectId/releases/:releaseId',
    {
      schema: { tags: TAGS, summary: 'Get one release', params: ReleaseParams, response: { 200: Ok(Type.Ref(ReleaseSchema)) } },
    },
    async (request) => {
      const { projectId, releaseId } = request.params;
      const res = await app.services.manualTesting.getRelease({ projectId, releaseId }, request.callOptions());
      return ok(releaseToJson(res.release!));
    },
  );

  app.patch(
    '/:projectId/releases/:releaseId',
    {
      schema: {
        tags: TAGS,
        summary: 'Update a release (send only the fields to change)',
        params: ReleaseParams,
        body: UpdateReleaseBody,
        response: { 200: Ok(Type.Ref(ReleaseSchema)) },
      },
    },
    async (request) => {
      const { projectId, releaseId } = request.params;
      const b = request.body;
      const res = await app.services.manualTesting.updateRelease(
        defined({
          projectId,
          releaseId,
          name: b.name,
          description: b.description,
          note: b.note,
          type: b.type,
          parentReleaseId: nullable(b.parentReleaseId),
          startDate: b.startDate,
          endDate: b.endDate,
          branch: b.branch,
          environment: b.environment,
          linkedIssues: b.linkedIssues ? { issues: b.linkedIssues } : undefined,
          buildTarget: buildTargetToProto(b.buildTarget),
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
