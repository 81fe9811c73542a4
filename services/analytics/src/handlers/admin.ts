/** AnalyticsAdminService: rebuild from the runs service, status of the read model (the admin CLI's calls). */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { AnalyticsAdminService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { runForNoCaller } from '@assay/db';
import { validation } from '@assay/errors';
import type { Wiring } from '../wiring';

export function adminHandlers({ model }: Pick<Wiring, 'model'>): ServiceImpl<typeof AnalyticsAdminService> {
  return {
    async rebuild(req) {
      if (!req.all && !req.projectId) throw validation('give a project id or all', [{ path: 'project', message: 'required unless all' }]);
      if (req.all && req.projectId) throw validation('give a project id or all, not both', [{ path: 'project', message: 'not with all' }]);
      // Its batches commit even if the admin CLI that asked is stopped: a rebuild left halfway is a read model short
      // of runs (the CLI waits up to 6 h, and a terminal closed meanwhile is not a reason to leave one).
      const res = await runForNoCaller(() => model.rebuild(req.all ? undefined : req.projectId));
      return { projects: BigInt(res.projects), runs: BigInt(res.runs), results: BigInt(res.results), durationMs: BigInt(res.ms) };
    },
    async getReadModelStatus(req) {
      const s = await model.status(req.projectId || undefined);
      return {
        projects: BigInt(s.projects),
        runs: BigInt(s.runs),
        results: BigInt(s.results),
        lastFoldedAt: s.lastFoldedAt ? timestampFromDate(s.lastFoldedAt) : undefined,
      };
    },
  };
}
