/** Manual test suites: create (spec §4.4), update/move (CONTRACT §2) and list as a tree (spec §2.4). */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, OkPage, ok } from '@assay/contracts/common/envelope';
import { nullable, ProjectParams } from '@assay/contracts/common/json';
import { PageQuery, page, pageOf, pagination } from '@assay/contracts/common/pagination';
import {
  CreateSuiteBody,
  SuiteParams,
  SuiteSchema,
  suiteToJson,
  UpdateSuiteBody,
} from '@assay/contracts/manual-testing/manual-test-suites';
import { typed } from '../../typed';

const TAGS = ['Manual Tests'];

export default async function manualTestSuiteRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.post(
    '/:projectId/manual-test-suites',
    {
      config: { idempotent: true },
      schema: {
        tags: TAGS,
        summary: 'Create a manual test suite',
        params: ProjectParams,
        body: CreateSuiteBody,
        response: { 201: Ok(Type.Ref(SuiteSchema)) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const res = await app.services.manualTesting.createSuite(
        { projectId: request.params.projectId, name: body.name, description: body.description, parentSuiteId: body.parentSuiteId },
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
        tags: TAGS,
        summary: 'Rename, describe or move a manual test suite',
        params: SuiteParams,
        body: UpdateSuiteBody,
        response: { 200: Ok(Type.Ref(SuiteSchema)) },
      },
    },
    async (request) => {
      const { projectId, suiteId } = request.params;
      const { body } = request;
      const res = await app.services.manualTesting.updateSuite(
        { projectId, suiteId, name: body.name, description: body.description, parentSuiteId: nullable(body.parentSuiteId) },
        request.callOptions(),
      );
      return ok(suiteToJson(res.suite!));
    },
  );

  app.get(
    '/:projectId/manual-test-suites',
    {
      schema: {
        tags: TAGS,
        summary: 'List root suites with their nested children',
        params: ProjectParams,
        querystring: Type.Object(PageQuery()),
        response: { 200: OkPage(Type.Ref(SuiteSchema)) },
      },
    },
    async (request) => {
      const q = pageOf(request.query);
      const res = await app.services.manualTesting.listSuites({ projectId: request.params.projectId, page: q }, request.callOptions());
      return page(res.suites.map(suiteToJson), pagination(q.page, q.limit, Number(res.page?.total ?? 0)));
    },
  );
}
