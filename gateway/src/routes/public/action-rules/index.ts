/** GET /action-rules/summary (spec §4.2): counts per operation of the active rules and quarantined tests in the window. */
import type { FastifyInstance } from 'fastify';
import { ok } from '@assay/contracts/common/envelope';
import { ActionRulesSummaryAnswer, ActionRulesSummaryQuery, summaryToJson } from '@assay/contracts/runs/action-rules';
import { ProjectParams } from '@assay/contracts/runs/test-runs';
import { DEFAULT_RULE_WINDOW_DAYS } from '@assay/contracts/runs/values';
import { typed } from '../../typed';

export default async function actionRuleRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/action-rules/summary',
    {
      schema: {
        tags: ['Action Rules'],
        summary: 'Summary of the action rules',
        description: 'A rule with several operations counts under each; `quarantinedTests` = distinct tests quarantined in the window.',
        params: ProjectParams,
        querystring: ActionRulesSummaryQuery,
        response: { 200: ActionRulesSummaryAnswer },
      },
    },
    async (request) => {
      const { windowDays = DEFAULT_RULE_WINDOW_DAYS } = request.query;
      const res = await app.services.runs.getActionRulesSummary({ projectId: request.params.projectId, windowDays }, request.callOptions());
      return ok(summaryToJson(res));
    },
  );
}
