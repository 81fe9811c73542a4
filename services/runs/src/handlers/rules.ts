/** Action rules: list (ActionRule, derived status), summary, skip list, and the admin RPCs that manage them. */
import { create } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { ActionRuleSchema, type RunsAdminService, type RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { notFound, validation } from '@assay/errors';
import type { Wiring } from '../wiring';
import { compileRule, OPERATIONS, ruleStatus, type Operation, type RuleRow, type RuleStatus } from '../domain/rules';
import { activeRules, disableRule, insertRule, listRules, quarantinedTests, testsMatching } from '../store/rules';
import { setPlan } from '../store/usage';

function toRule(r: RuleRow, now: Date) {
  return create(ActionRuleSchema, {
    id: r.id,
    name: r.name,
    description: r.description,
    operations: r.operations,
    titlePattern: r.titlePattern ?? '',
    file: r.file ?? '',
    matchTag: r.matchTag ?? '',
    tag: r.tag ?? '',
    enabled: r.enabled,
    expiresAt: r.expiresAt ? timestampFromDate(r.expiresAt) : undefined,
    createdBy: r.createdBy,
    createdAt: timestampFromDate(r.createdAt),
    updatedAt: timestampFromDate(r.updatedAt),
    status: ruleStatus(r, now),
  });
}

/** `GET /ingest/{projectId}/skip-list`: the tests active skip rules name, for reporters. */
export async function skipList(rt: Wiring, projectId: string) {
  const rules = (await activeRules(rt.pool, projectId, rt.now())).filter((r) => r.operations.includes('skip')).map(compileRule);
  if (rules.length === 0) return { rules: [], tests: [] };
  const tests = (await testsMatching(rt.pool, projectId)).filter((t) => rules.some((r) => r.matches(t)));
  return {
    rules: rules.map((r) => ({
      id: r.rule.id,
      name: r.rule.name,
      titlePattern: r.rule.titlePattern,
      file: r.rule.file,
      tag: r.rule.matchTag,
    })),
    tests: tests.map((t) => ({ testId: t.id, file: t.file, titlePath: t.titlePath, title: t.fullTitle, projectName: t.projectName })),
  };
}

export function ruleHandlers(rt: Wiring): Pick<ServiceImpl<typeof RunsService>, 'listWorkflowRules' | 'getActionRulesSummary'> {
  return {
    async listWorkflowRules(req) {
      const page = Math.max(1, req.page?.page || 1);
      const limit = Math.min(100, Math.max(1, req.page?.limit || 10));
      if (req.status && !['active', 'expired', 'disabled'].includes(req.status))
        throw validation('status must be active, expired or disabled', [
          { path: 'query.status', message: 'must be one of "active", "expired", "disabled"' },
        ]);
      const now = rt.now();
      const res = await listRules(rt.pool, req.projectId, {
        status: (req.status || undefined) as RuleStatus | undefined,
        limit,
        offset: (page - 1) * limit,
        now,
      });
      return { rules: res.rows.map((r) => toRule(r, now)), page: { page, limit, total: BigInt(res.total) } };
    },

    async getActionRulesSummary(req) {
      const windowDays = req.windowDays === 30 ? 30 : 7;
      const now = rt.now();
      const rules = await activeRules(rt.pool, req.projectId, now);
      const count = (op: Operation) => rules.filter((r) => r.operations.includes(op)).length;
      const since = new Date(now.getTime() - windowDays * 86400_000);
      return {
        skip: count('skip'),
        quarantine: count('quarantine'),
        tag: count('tag'),
        quarantinedTests: await quarantinedTests(rt.pool, req.projectId, since),
        windowDays,
      };
    },
  };
}

export function adminHandlers(rt: Wiring): ServiceImpl<typeof RunsAdminService> {
  return {
    async createRule(req) {
      const details: { path: string; message: string }[] = [];
      if (!req.projectId) details.push({ path: 'project', message: 'is required' });
      if (!req.name.trim()) details.push({ path: 'name', message: 'is required' });
      const ops = [...new Set(req.operations)];
      if (ops.length === 0 || ops.some((o) => !(OPERATIONS as readonly string[]).includes(o)))
        details.push({ path: 'operations', message: `must be a non-empty list of ${OPERATIONS.join(', ')}` });
      if (ops.includes('tag') && !req.tag) details.push({ path: 'tag', message: 'the tag operation needs the tag to add' });
      if (!req.titlePattern && !req.file && !req.matchTag)
        details.push({ path: 'title-pattern', message: 'a rule needs at least one of title pattern, file or tag to match' });
      if (req.titlePattern) {
        try {
          new RegExp(req.titlePattern, 'i');
        } catch {
          details.push({ path: 'title-pattern', message: 'is not a valid regular expression' });
        }
      }
      if (details.length > 0) throw validation(`${details[0]!.path}: ${details[0]!.message}`, details);
      const id = await insertRule(rt.pool, {
        projectId: req.projectId,
        name: req.name.trim(),
        description: req.description,
        operations: ops as Operation[],
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
      if (!(await disableRule(rt.pool, req.id, req.projectId || undefined))) throw notFound('Rule');
      return {};
    },

    async setPlan(req) {
      if (!req.orgId) throw validation('org is required', [{ path: 'org', message: 'is required' }]);
      if (!req.planName.trim()) throw validation('plan is required', [{ path: 'plan', message: 'is required' }]);
      if (req.testResultsPerMonth < 0n)
        throw validation('test-results-per-month must be ≥ 0', [{ path: 'test-results-per-month', message: 'must be ≥ 0' }]);
      await setPlan(rt.pool, req.orgId, { planName: req.planName.trim(), testResultsPerMonth: Number(req.testResultsPerMonth) });
      return {};
    },
  };
}
