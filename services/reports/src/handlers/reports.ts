/** ReportsService: request a report (pending; the generator does the work) and read its status. */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { CreateReportResponseSchema, ReportSchema, type Report, type ReportsService } from '@assay/proto/assay/reports/v1/reports_pb';
import { ID_PATTERN, newId } from '@assay/db';
import { notFound } from '@assay/errors';
import { principalOf, withIdempotency } from '@assay/service-kit';
import { reportStatus } from '@assay/contracts/reports/reports';
import { projectName, SourceError } from '../domain/collect';
import { checkParams, periodEnding, reportFileName } from '../domain/period';
import { findReport, insertReport, type ReportRow } from '../store/reports';
import type { Wiring } from '../wiring';

const DAY_MS = 86_400_000;

/** A failed call to another service answers with that call's error (e.g. 503 SERVICE_UNAVAILABLE). */
export function unwrap(err: unknown): never {
  throw err instanceof SourceError ? err.error : err;
}

export function toReport(r: ReportRow): Report {
  return create(ReportSchema, {
    id: r.id,
    projectId: r.projectId,
    status: reportStatus.toProto(r.status),
    createdAt: timestampFromDate(r.createdAt),
    completedAt: r.completedAt ? timestampFromDate(r.completedAt) : undefined,
    sizeBytes: BigInt(r.sizeBytes),
    failureReason: r.status === 'failed' ? r.failureReason : '',
    fileName: r.fileName,
    days: r.days,
    fromDate: r.fromDate,
    untilDate: r.untilDate,
    filters: { branch: r.branch, environment: r.environment, tags: r.tags },
    expiresAt: timestampFromDate(r.expiresAt),
  });
}

export function reportHandlers(rt: Wiring): Pick<ServiceImpl<typeof ReportsService>, 'createReport' | 'getReport'> {
  return {
    async createReport(req, ctx) {
      const principal = principalOf(ctx);
      const params = checkParams({
        days: req.days,
        branch: req.filters?.branch,
        environment: req.filters?.environment,
        tags: req.filters?.tags,
      });
      const now = rt.clock();
      const period = periodEnding(now, params.days);
      const name = await projectName(rt.sources, req.projectId, ctx.signal).catch(unwrap);
      // The report's row (and its Idempotency-Key's record) commit only while the caller waits: a create answered 503 is
      // not stored.
      const answer = await withIdempotency(rt.pool, ctx, CreateReportResponseSchema, async (c) => {
        const row = await insertReport(c, {
          id: newId(),
          projectId: req.projectId,
          orgId: principal.orgId,
          projectName: name,
          requestedBy: principal,
          ...period,
          branch: params.branch,
          environment: params.environment,
          tags: params.tags,
          fileName: reportFileName(name, req.projectId, period),
          createdAt: now,
          expiresAt: new Date(now.getTime() + rt.config.REPORT_RETENTION_DAYS * DAY_MS),
        });
        return { report: toReport(row) };
      });
      rt.wake();
      return answer;
    },

    async getReport(req) {
      const row = ID_PATTERN.test(req.reportId) ? await findReport(rt.pool, req.projectId, req.reportId) : undefined;
      if (!row) throw notFound('Report');
      return { report: toReport(row) };
    },
  };
}
