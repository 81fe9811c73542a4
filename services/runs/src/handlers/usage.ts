/**
 * The `usage` family (RunsService.GetUsage: the organization's plan, period and counts, and the project's stored
 * artifacts) and the admin CLI's `plan:set`, `project:artifacts` and `project:set-artifact-retention`.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { RunsAdminService, RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { validation } from '@assay/errors';
import { principalOf } from '@assay/service-kit';
import type { Wiring } from '../wiring';
import { setPlan, usageOf } from '../store/usage';
import { projectArtifactUsage, retentionDaysOf, setRetentionDays } from '../store/artifacts';

export function usageHandlers(w: Wiring): Pick<ServiceImpl<typeof RunsService>, 'getUsage'> {
  return {
    async getUsage(req, ctx) {
      const caller = principalOf(ctx);
      const [u, a] = await Promise.all([usageOf(w.pool, caller.orgId, w.clock(), w.defaultPlan), artifactStorage(w, req.projectId)]);
      return {
        artifactBytes: a.bytes,
        artifactCount: a.count,
        artifactRetentionDays: a.retentionDays,
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

/** A project's artifact retention and the storage it uses now. */
async function artifactStorage(w: Wiring, projectId: string) {
  const [days, used] = await Promise.all([
    retentionDaysOf(w.pool, projectId, w.config.ARTIFACT_RETENTION_DAYS),
    projectArtifactUsage(w.pool, projectId),
  ]);
  return { projectId, retentionDays: days, bytes: BigInt(used.bytes), count: BigInt(used.count) };
}

export function planAdminHandlers(
  w: Wiring,
): Pick<ServiceImpl<typeof RunsAdminService>, 'setPlan' | 'getArtifactStorage' | 'setArtifactRetention'> {
  const project = (id: string) => {
    if (!id) throw validation('project is required', [{ path: 'project', message: 'is required' }]);
    return id;
  };
  return {
    async getArtifactStorage(req) {
      return { storage: await artifactStorage(w, project(req.projectId)) };
    },
    async setArtifactRetention(req) {
      if (!Number.isInteger(req.days) || req.days < 1 || req.days > 3650)
        throw validation('days must be between 1 and 3650', [{ path: 'days', message: 'between 1 and 3650' }]);
      await setRetentionDays(w.pool, project(req.projectId), req.days);
      // Artifacts that the shorter retention expires go at the sweeper's next pass.
      return { storage: await artifactStorage(w, req.projectId) };
    },
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
