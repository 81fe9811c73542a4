/** GET /workflow-rules (spec §4.2, CONTRACT §2): `{rules: [ActionRule]}`, paginated, optional status filter. */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { ActionRule } from '@assay/proto/assay/runs/v1/runs_pb';
import { PageQuery, pagination, type PageQueryValue } from '@assay/contracts/common/pagination';

const DateOrNull = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
export const ActionRuleSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    operations: Type.Array(Type.Union([Type.Literal('skip'), Type.Literal('quarantine'), Type.Literal('tag')])),
    match: Type.Object({
      titlePattern: Type.Optional(Type.String({ description: 'case-insensitive regular expression on the full title' })),
      file: Type.Optional(Type.String({ description: 'the test file, or a path suffix of it' })),
      tag: Type.Optional(Type.String()),
    }),
    tag: Type.Optional(Type.String({ description: 'added by the tag operation' })),
    enabled: Type.Boolean(),
    expiresAt: DateOrNull,
    createdBy: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('disabled')]),
  },
  { title: 'ActionRule' },
);

const iso = (t: Parameters<typeof timestampDate>[0] | undefined) => (t ? timestampDate(t).toISOString() : null);

export function ruleToJson(r: ActionRule) {
  const match: Record<string, string> = {};
  if (r.titlePattern) match.titlePattern = r.titlePattern;
  if (r.file) match.file = r.file;
  if (r.matchTag) match.tag = r.matchTag;
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    operations: r.operations,
    match,
    ...(r.tag ? { tag: r.tag } : {}),
    enabled: r.enabled,
    expiresAt: iso(r.expiresAt),
    createdBy: r.createdBy,
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
    status: r.status,
  };
}

export default async function workflowRuleRoutes(app: FastifyInstance) {
  app.get(
    '/:projectId/workflow-rules',
    {
      schema: {
        tags: ['Action Rules'],
        summary: 'Action (workflow) rules of the project',
        params: Type.Object({ projectId: Type.String() }),
        querystring: Type.Object({
          ...PageQuery(),
          status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('disabled')])),
        }),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            data: Type.Object({ rules: Type.Array(ActionRuleSchema) }),
            pagination: Type.Ref('Pagination'),
          }),
        },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as PageQueryValue & { status?: string };
      const res = await app.services.runs.listWorkflowRules(
        { projectId, status: q.status ?? '', page: { page: q.page, limit: q.limit } },
        request.callOptions(),
      );
      return {
        success: true,
        data: { rules: res.rules.map(ruleToJson) },
        pagination: pagination(q.page, q.limit, Number(res.page?.total ?? 0)),
      };
    },
  );
}
