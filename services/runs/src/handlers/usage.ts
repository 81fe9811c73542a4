/** GET /usage (CONTRACT §2): the organization's plan, period and counts. */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { principalOf } from '@assay/service-kit';
import type { Wiring } from '../wiring';
import { usageOf } from '../store/usage';

export function usageHandlers(rt: Wiring): Pick<ServiceImpl<typeof RunsService>, 'getUsage'> {
  return {
    async getUsage(_req, ctx: HandlerContext) {
      const caller = principalOf(ctx);
      const u = await usageOf(rt.pool, caller.orgId, rt.now(), rt.defaultPlan);
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
