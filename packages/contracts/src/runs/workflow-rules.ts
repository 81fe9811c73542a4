/**
 * The `workflow-rules` family (spec §4.2, CONTRACT §2): the project's action rules, `{rules: [ActionRule]}`,
 * paged, optionally filtered by their derived status; and the proto ↔ JSON maps of the rules' value sets
 * (also used by the `action-rules` summary and the admin CLI's `rule:create`).
 */
import { Type, type Static } from '@sinclair/typebox';
import { RuleOperation, RuleStatus, type ActionRule } from '@assay/proto/assay/runs/v1/runs_pb';
import { enumOf } from '../common/enums';
import { Pagination } from '../common/envelope';
import { iso, isoRequired, Nullable } from '../common/json';
import { PageQuery } from '../common/pagination';
import { RULE_OPERATIONS, RULE_STATUSES, type RuleOperationName, type RuleStatusName } from './values';
import { literals } from './test-runs';

export const ruleOperation = enumOf<RuleOperationName, RuleOperation>(RULE_OPERATIONS, RuleOperation);
export const ruleStatus = enumOf<RuleStatusName, RuleStatus>(RULE_STATUSES, RuleStatus);

const DateTime = Type.String({ format: 'date-time' });

export const ActionRuleSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    operations: Type.Array(literals(RULE_OPERATIONS)),
    match: Type.Object({
      titlePattern: Type.Optional(Type.String({ description: 'case-insensitive regular expression on the full title' })),
      file: Type.Optional(Type.String({ description: 'the test file, or a path suffix of it' })),
      tag: Type.Optional(Type.String()),
    }),
    tag: Type.Optional(Type.String({ description: 'added by the tag operation' })),
    enabled: Type.Boolean(),
    expiresAt: Nullable(DateTime),
    createdBy: Type.String(),
    createdAt: DateTime,
    updatedAt: DateTime,
    status: literals(RULE_STATUSES),
  },
  { title: 'ActionRule' },
);
export type ActionRuleJson = Static<typeof ActionRuleSchema>;

export const WorkflowRulesQuery = Type.Object({ ...PageQuery(), status: Type.Optional(literals(RULE_STATUSES)) });

export const WorkflowRulesPage = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ rules: Type.Array(ActionRuleSchema) }),
  pagination: Type.Ref(Pagination),
});

export function ruleToJson(r: ActionRule): ActionRuleJson {
  const match: ActionRuleJson['match'] = {};
  if (r.titlePattern) match.titlePattern = r.titlePattern;
  if (r.file) match.file = r.file;
  if (r.matchTag) match.tag = r.matchTag;
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    operations: r.operations.map(ruleOperation.fromProto),
    match,
    ...(r.tag ? { tag: r.tag } : {}),
    enabled: r.enabled,
    expiresAt: iso(r.expiresAt),
    createdBy: r.createdBy,
    createdAt: isoRequired(r.createdAt),
    updatedAt: isoRequired(r.updatedAt),
    status: ruleStatus.fromProto(r.status),
  };
}
