/** GET /action-rules/summary (spec §4.2): counts per operation of the active rules and quarantined tests in the window. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';

export default async function actionRuleRoutes(app: FastifyInstance) {
  app.get(
    '/:projectId/action-rules/summary',
    {
      schema: {
        tags: ['Action Rules'],
        summary: 'Summary of the action rules',
        description: 'A rule with several operations counts under each; `quarantinedTests` = distinct tests quarantined in the window.',
        params: Type.Object({ projectId: Type.String() }),
        querystring: Type.Object({ windowDays: Type.Optional(Type.Union([Type.Literal(7), Type.Literal(30)], { default: 7 })) }),
        response: {
          200: Ok(
            Type.Object({
              rules: Type.Object({ skip: Type.Integer(), quarantine: Type.Integer(), tag: Type.Integer() }),
              quarantinedTests: Type.Integer(),
              windowDays: Type.Integer(),
            }),
          ),
        },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const { windowDays } = request.query as { windowDays: number };
      const res = await app.services.runs.getActionRulesSummary({ projectId, windowDays }, request.callOptions());
      return ok({
        rules: { skip: res.skip, quarantine: res.quarantine, tag: res.tag },
        quarantinedTests: res.quarantinedTests,
        windowDays: res.windowDays,
      });
    },
  );
}
