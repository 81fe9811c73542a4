/** GET /workflow-rules (spec §4.2, CONTRACT §2): `{rules: [ActionRule]}`, paginated, optional status filter. */
import type { FastifyInstance } from 'fastify';
import { pageOf, pagination } from '@assay/contracts/common/pagination';
import { ProjectParams } from '@assay/contracts/runs/test-runs';
import { ruleStatus, ruleToJson, WorkflowRulesPage, WorkflowRulesQuery } from '@assay/contracts/runs/workflow-rules';
import { typed } from '../../typed';

export default async function workflowRuleRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/workflow-rules',
    {
      schema: {
        tags: ['Action Rules'],
        summary: 'Action (workflow) rules of the project',
        params: ProjectParams,
        querystring: WorkflowRulesQuery,
        response: { 200: WorkflowRulesPage },
      },
    },
    async (request) => {
      const { page, limit } = pageOf(request.query);
      const { status } = request.query;
      const res = await app.services.runs.listWorkflowRules(
        {
          projectId: request.params.projectId,
          status: status === undefined ? undefined : ruleStatus.toProto(status),
          page: { page, limit },
        },
        request.callOptions(),
      );
      return {
        success: true as const,
        data: { rules: res.rules.map(ruleToJson) },
        pagination: pagination(page, limit, Number(res.page?.total ?? 0)),
      };
    },
  );
}
