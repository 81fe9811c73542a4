/** The `usage` family (RunsService.GetUsage: the organization's plan, period and counts) and the admin CLI's `plan:set`. */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { RunsAdminService, RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { validation } from '@assay/errors';
import { principalOf } from '@assay/service-kit';
import type { Wiring } from '../wiring';
import { setPlan, usageOf } from '../store/usage';

export function usageHandlers(w: Wiring): Pick<ServiceImpl<typeof RunsService>, 'getUsage'> {
  return {
    async getUsage(_req, ctx) {
      const caller = principalOf(ctx);
      const u = await usageOf(w.pool, caller.orgId, w.clock(), w.defaultPlan);
      return {
        planName: u.planName,
        periodStart: timestampFromDate(u.start),
        periodEnd: timestampFromDate(u.end),
        testResultsPerMonth: BigInt(u.testResultsPerMonth),
        usedTestResults: BigInt(u.testResults),
        usedRuns: BigInt(u.runs),
        remaining: BigInt(u.remaining),
      };
    },
  };
}

export function planAdminHandlers(w: Wiring): Pick<ServiceImpl<typeof RunsAdminService>, 'setPlan'> {
  return {
    async setPlan(req) {
      if (!req.orgId) throw validation('org is required', [{ path: 'org', message: 'is required' }]);
      if (!req.planName.trim()) throw validation('plan is required', [{ path: 'plan', message: 'is required' }]);
      if (req.testResultsPerMonth < 0n)
        throw validation('test-results-per-month must be ≥ 0', [{ path: 'test-results-per-month', message: 'must be ≥ 0' }]);
      await setPlan(w.pool, req.orgId, { planName: req.planName.trim(), testResultsPerMonth: Number(req.testResultsPerMonth) });
      return {};
    },
  };
}
