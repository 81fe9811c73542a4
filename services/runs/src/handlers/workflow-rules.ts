/**
 * The `workflow-rules` family (RunsService.ListWorkflowRules: the rules with their derived status) and the
 * admin CLI's side of the same rules (RunsAdminService: `rule:create`, `rule:disable`, `rules`).
 */
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { ActionRuleSchema, type RunsAdminService, type RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { notFound, validation } from '@assay/errors';
import { idPage, idPageOf, paging, pageInfo } from '@assay/service-kit';
import { ruleOperation, ruleStatus as ruleStatuses } from '@assay/contracts/runs/workflow-rules';
import { RULE_OPERATIONS, type RuleOperationName } from '@assay/contracts/runs/values';
import type { Wiring } from '../wiring';
import { compileTitlePattern, ruleStatus, type RuleRow } from '../domain/rules';
import { enumValue } from '../domain/values';
import { disableRule, insertRule, listRules, rulesPage } from '../store/action-rules';

function toRule(r: RuleRow, now: Date) {
  return create(ActionRuleSchema, {
    id: r.id,
    name: r.name,
    description: r.description,
    operations: r.operations.map(ruleOperation.toProto),
    titlePattern: r.titlePattern ?? '',
    file: r.file ?? '',
    matchTag: r.matchTag ?? '',
    tag: r.tag ?? '',
    enabled: r.enabled,
    expiresAt: r.expiresAt ? timestampFromDate(r.expiresAt) : undefined,
    createdBy: r.createdBy,
    createdAt: timestampFromDate(r.createdAt),
    updatedAt: timestampFromDate(r.updatedAt),
    status: ruleStatuses.toProto(ruleStatus(r, now)),
  });
}

export function workflowRuleHandlers(w: Wiring): Pick<ServiceImpl<typeof RunsService>, 'listWorkflowRules'> {
  return {
    async listWorkflowRules(req) {
      const status = req.status === undefined ? undefined : enumValue(ruleStatuses, req.status, 'query.status');
      const p = paging(req.page);
      const now = w.clock();
      const res = await listRules(w.pool, req.projectId, { status, limit: p.limit, offset: p.offset, now });
      return { rules: res.rows.map((r) => toRule(r, now)), page: pageInfo(p, res.total) };
    },
  };
}

type Detail = { path: string; message: string };

/** The operations of a new rule, each once; unknown or none → a detail at `operations`. */
function operationsOf(values: number[], details: Detail[]): RuleOperationName[] {
  const known = new Map(RULE_OPERATIONS.map((o) => [ruleOperation.toProto(o) as number, o]));
  const ops = [...new Set(values)].map((v) => known.get(v));
  if (ops.length === 0 || ops.includes(undefined)) {
    details.push({ path: 'operations', message: `must be a non-empty list of ${RULE_OPERATIONS.join(', ')}` });
    return [];
  }
  return ops.filter((o) => o !== undefined);
}

export function ruleAdminHandlers(w: Wiring): Pick<ServiceImpl<typeof RunsAdminService>, 'createRule' | 'disableRule' | 'listRules'> {
  return {
    async createRule(req) {
      const details: Detail[] = [];
      if (!req.projectId) details.push({ path: 'project', message: 'is required' });
      if (!req.name.trim()) details.push({ path: 'name', message: 'is required' });
      const operations = operationsOf(req.operations, details);
      if (operations.includes('tag') && !req.tag) details.push({ path: 'tag', message: 'the tag operation needs the tag to add' });
      if (!req.titlePattern && !req.file && !req.matchTag)
        details.push({ path: 'title-pattern', message: 'a rule needs at least one of title pattern, file or tag to match' });
      const pattern = req.titlePattern ? compileTitlePattern(req.titlePattern) : undefined;
      if (pattern && 'problem' in pattern) details.push({ path: 'title-pattern', message: pattern.problem });
      if (details.length > 0) throw validation(`${details[0]!.path}: ${details[0]!.message}`, details);
      const id = await insertRule(w.pool, {
        projectId: req.projectId,
        name: req.name.trim(),
        description: req.description,
        operations,
        titlePattern: req.titlePattern || null,
        file: req.file || null,
        matchTag: req.matchTag || null,
        tag: req.tag || null,
        expiresAt: req.expiresAt ? timestampDate(req.expiresAt) : null,
        createdBy: req.createdBy || 'admin-cli',
      });
      return { id };
    },

    async disableRule(req) {
      if (!(await disableRule(w.pool, req.id, req.projectId || undefined))) throw notFound('Rule');
      return {};
    },

    // The runs service knows no projects (identity owns them): an unknown project has no rules.
    async listRules(req) {
      if (!req.projectId) throw validation('project: is required', [{ path: 'project', message: 'is required' }]);
      const page = idPage(req);
      const now = w.clock();
      const { rows, nextPageToken } = idPageOf(await rulesPage(w.pool, req.projectId, page), page, (r) => r.id);
      return { rules: rows.map((r) => toRule(r, now)), nextPageToken };
    },
  };
}
