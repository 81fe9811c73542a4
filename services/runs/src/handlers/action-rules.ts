/** The `action-rules` family (RunsService.GetActionRulesSummary): the active rules per operation and the quarantined tests of a window. */
import type { ServiceImpl } from '@connectrpc/connect';
import type { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { DEFAULT_RULE_WINDOW_DAYS, RULE_WINDOW_DAYS, type RuleOperationName } from '@assay/contracts/runs/values';
import type { Wiring } from '../wiring';
import { activeRules, quarantinedTests } from '../store/action-rules';

const DAY_MS = 86_400_000;

export function actionRuleHandlers(w: Wiring): Pick<ServiceImpl<typeof RunsService>, 'getActionRulesSummary'> {
  return {
    async getActionRulesSummary(req) {
      // Any other window (0 = unset) is the default one.
      const windowDays = RULE_WINDOW_DAYS.find((d) => d === req.windowDays) ?? DEFAULT_RULE_WINDOW_DAYS;
      const now = w.clock();
      const rules = await activeRules(w.pool, req.projectId, now);
      const count = (op: RuleOperationName) => rules.filter((r) => r.operations.includes(op)).length;
      return {
        skip: count('skip'),
        quarantine: count('quarantine'),
        tag: count('tag'),
        quarantinedTests: await quarantinedTests(w.pool, req.projectId, new Date(now.getTime() - windowDays * DAY_MS)),
        windowDays,
      };
    },
  };
}
