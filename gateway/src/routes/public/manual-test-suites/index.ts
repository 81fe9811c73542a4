/** Manual test suites: create (spec §4.4), update/move (CONTRACT §2) and list as a tree (spec §2.4). */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { PageQuery, page, pagination, type PageQueryValue } from '@assay/contracts/common/pagination';
import { nullableString } from '@assay/contracts/common/json';
import {
  CreateSuiteBody,
  SuiteSchema,
  suiteToJson,
  UpdateSuiteBody,
  type CreateSuiteBodyValue,
  type UpdateSuiteBodyValue,
} from './schemas';

const ProjectParams = Type.Object({ projectId: Type.String() });

export default async function manualTestSuiteRoutes(app: FastifyInstance) {
  app.post(
    '/:projectId/manual-test-suites',
    {
      config: { idempotent: true },
      schema: {
        tags: ['Manual Tests'],
        summary: 'Create a manual test suite',
        params: ProjectParams,
        body: CreateSuiteBody,
        response: { 201: Ok(Type.Ref(SuiteSchema)) },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params as { projectId: string };
      const body = request.body as CreateSuiteBodyValue;
      const res = await app.services.manualTesting.createSuite(
        { projectId, name: body.name, description: body.description, parentSuiteId: body.parentSuiteId },
        request.callOptions(),
      );
      reply.code(201);
      return ok(suiteToJson(res.suite!));
    },
  );

  app.patch(
    '/:projectId/manual-test-suites/:suiteId',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'Rename, describe or move a manual test suite',
        params: Type.Object({ projectId: Type.String(), suiteId: Type.String() }),
        body: UpdateSuiteBody,
        response: { 200: Ok(Type.Ref(SuiteSchema)) },
      },
    },
    async (request) => {
      const { projectId, suiteId } = request.params as { projectId: string; suiteId: string };
      const body = request.body as UpdateSuiteBodyValue;
      const res = await app.services.manualTesting.updateSuite(
        {
          projectId,
          suiteId,
          name: body.name,
          description: body.description,
          parentSuiteId: nullableString(body.parentSuiteId),
        },
        request.callOptions(),
      );
      return ok(suiteToJson(res.suite!));
    },
  );

  app.get(
    '/:projectId/manual-test-suites',
    {
      schema: {
        tags: ['Manual Tests'],
        summary: 'List root suites with their nested children',
        params: ProjectParams,
        querystring: Type.Object(PageQuery()),
        response: { 200: OkPage(Type.Ref(SuiteSchema)) },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as PageQueryValue;
      const res = await app.services.manualTesting.listSuites({ projectId, page: { page: q.page, limit: q.limit } }, request.callOptions());
      return page(res.suites.map(suiteToJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );
}
