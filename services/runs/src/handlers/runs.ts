/** RunsService reads: runs, run detail sections, a run's test cases, one test case, test history. */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { notFound, validation } from '@assay/errors';
import type { Wiring } from '../wiring';
import { findRun, listRuns, scanRuns } from '../store/runs';
import {
  allRunResults,
  attemptsOf,
  errorGroupsOf,
  findResult,
  historySummary,
  listRunResults,
  resultsAfter,
  runAttachments,
  tagStatsOf,
  testHistory,
} from '../store/results';
import { toSnapshot } from '../domain/snapshot';
import { fullTitleOf } from '../domain/identity';
import { attemptJson, errorCategoryOf, historyItemJson, runJson, specIdOf, testCaseJson, toStruct } from './view';

export const INCLUDES = ['errors', 'coverage', 'specs', 'artifacts'] as const;
const RESULT_STATUSES = ['passed', 'failed', 'flaky', 'skipped', 'timedOut', 'interrupted'];

const pageOf = (p?: { page: number; limit: number }) => {
  const page = Math.max(1, p?.page || 1);
  const limit = Math.min(100, Math.max(1, p?.limit || 10));
  return { page, limit, offset: (page - 1) * limit };
};

type Rpcs = Pick<
  ServiceImpl<typeof RunsService>,
  'listRuns' | 'getRun' | 'listRunTestCases' | 'getTestCase' | 'getTestCaseHistory' | 'listRunResults' | 'getRunSnapshot' | 'scanRuns'
>;

export function runHandlers(rt: Wiring): Rpcs {
  const { pool, links } = rt;
  return {
    async listRuns(req) {
      const { page, limit, offset } = pageOf(req.page);
      const from = req.startTime ? timestampDate(req.startTime) : undefined;
      const to = req.endTime ? timestampDate(req.endTime) : undefined;
      const res = await listRuns(pool, req.projectId, { limit, offset, from, to });
      return { runs: res.rows.map((r) => toSnapshot(r, links)), page: { page, limit, total: BigInt(res.total) } };
    },

    async getRun(req) {
      const run = await findRun(pool, req.projectId, req.runId);
      if (!run) throw notFound('Run');
      const include = new Set(req.include.includes('all') ? INCLUDES : req.include);
      const results = await allRunResults(pool, run.id);
      const failures = results.filter((r) => r.outcome === 'unexpected');
      const categories: Record<string, number> = { assertion: 0, timeout: 0, network: 0, element: 0, other: 0 };
      for (const f of failures) categories[errorCategoryOf(f)]!++;
      const detail: Record<string, unknown> = {
        errorCategory: { total: failures.length, categories },
        liveStats: {
          isRunning: run.status === 'running',
          completed: results.length,
          expected: run.totalTestsExpected,
          remaining: run.totalTestsExpected === null ? null : Math.max(0, run.totalTestsExpected - results.length),
          progress: run.totalTestsExpected ? Math.min(100, Math.round((results.length / run.totalTestsExpected) * 100)) : null,
          quarantined: run.stats.quarantined,
          interrupted: run.stats.interrupted,
          lastActivityAt: run.lastActivityAt.toISOString(),
        },
        tagStats: await tagStatsOf(pool, run.id),
      };
      if (include.has('errors')) detail.errorGroups = await errorGroupsOf(pool, run.id);
      if (include.has('coverage')) detail.coverage = run.coverage ?? null;
      if (include.has('specs')) {
        const byFile = new Map<string, typeof results>();
        for (const r of results) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
        detail.specs = [...byFile].map(([file, rs]) => ({
          id: specIdOf(run.projectId, file),
          file,
          total: rs.length,
          passed: rs.filter((r) => r.outcome === 'expected').length,
          failed: rs.filter((r) => r.outcome === 'unexpected').length,
          flaky: rs.filter((r) => r.outcome === 'flaky').length,
          skipped: rs.filter((r) => r.outcome === 'skipped').length,
          duration: rs.reduce((n, r) => n + r.durationMs, 0),
          url: links.spec(run.projectId, run.id, specIdOf(run.projectId, file)),
          tests: rs.map((r) => ({
            caseId: r.id,
            title: fullTitleOf(r.titlePath),
            projectName: r.projectName,
            status: r.publicStatus,
            duration: r.durationMs,
            retries: Math.max(0, r.attemptCount - 1),
            quarantined: r.quarantined,
          })),
        }));
      }
      if (include.has('artifacts')) {
        const atts = await runAttachments(pool, run.id);
        detail.artifacts =
          atts.length === 0
            ? null
            : {
                count: atts.length,
                items: atts.map((a) => ({ caseId: a.caseId, title: fullTitleOf(a.titlePath), retry: a.retry, ...a.attachment })),
              };
      }
      return { run: toSnapshot(run, links), detail: toStruct(detail) };
    },

    async listRunTestCases(req) {
      const run = await findRun(pool, req.projectId, req.runId);
      if (!run) throw notFound('Run');
      if (req.status && !RESULT_STATUSES.includes(req.status))
        throw validation(`status must be one of ${RESULT_STATUSES.join(', ')}`, [
          { path: 'query.status', message: `must be one of ${RESULT_STATUSES.join(', ')}` },
        ]);
      const { page, limit, offset } = pageOf(req.page);
      const res = await listRunResults(pool, run.id, { status: req.status || undefined, limit, offset });
      return { testCases: res.rows.map((r) => toStruct(testCaseJson(r, links))), page: { page, limit, total: BigInt(res.total) } };
    },

    async getTestCase(req) {
      const r = await findResult(pool, req.projectId, req.caseId);
      if (!r) throw notFound('Test case');
      const run = (await findRun(pool, req.projectId, r.runId))!;
      const attempts = await attemptsOf(pool, r.id);
      const last = attempts[attempts.length - 1];
      const failing = [...attempts].reverse().find((a) => a.errors.length > 0);
      const out: Record<string, unknown> = {
        id: r.id,
        metadata: {
          run: runJson(run, links),
          test: {
            id: r.testId,
            title: r.titlePath[r.titlePath.length - 1] ?? '',
            titlePath: r.titlePath,
            fullTitle: fullTitleOf(r.titlePath),
            file: r.file,
            projectName: r.projectName,
            location: r.location,
            tags: r.tags,
            annotations: r.annotations,
          },
        },
        overview: {
          status: r.publicStatus,
          outcome: r.outcome,
          expectedStatus: r.expectedStatus,
          quarantined: r.quarantined,
          duration: r.durationMs,
          retries: Math.max(0, r.attemptCount - 1),
          error: failing ? attemptJson(failing).error : null,
          attempts: attempts.map((a) => attemptJson(a)),
          steps: (failing ?? last)?.steps ?? [],
          attachments: attempts.flatMap((a) => a.attachments.map((x) => ({ ...x, retry: a.retry }))),
        },
        url: links.testCase(r.projectId, r.runId, r.id),
      };
      if (req.includeHistory) {
        const s = await historySummary(pool, req.projectId, r.testId);
        const recent = await testHistory(pool, req.projectId, { testId: r.testId, limit: 10, offset: 0 });
        out.history = {
          summary: {
            totalRuns: s.total,
            passed: s.passed,
            failed: s.failed,
            flaky: s.flaky,
            skipped: s.skipped,
            interrupted: s.interrupted,
            stabilityScore: s.total === 0 ? 0 : Math.round((s.passed / s.total) * 10000) / 100,
            lastPassed: s.last_passed ? new Date(s.last_passed).toISOString() : null,
            lastFailed: s.last_failed ? new Date(s.last_failed).toISOString() : null,
            lastFlaky: s.last_flaky ? new Date(s.last_flaky).toISOString() : null,
          },
          recent: recent.rows.map((h) => historyItemJson(h, links)),
        };
      }
      return { testCase: toStruct(out) };
    },

    async getTestCaseHistory(req) {
      if (!req.testId && !req.title)
        throw validation('testId or title is required', [{ path: 'query.testId', message: 'testId or title is required' }]);
      const limit = Math.min(100, Math.max(1, req.limit || 10));
      const offset = Math.max(0, req.offset);
      const res = await testHistory(pool, req.projectId, {
        testId: req.testId || undefined,
        title: req.title || undefined,
        branch: req.branch || undefined,
        limit,
        offset,
      });
      return { items: res.rows.map((h) => toStruct(historyItemJson(h, links))), total: BigInt(res.total) };
    },

    async listRunResults(req) {
      const run = await findRun(pool, undefined, req.runId);
      if (!run) throw notFound('Run');
      const size = Math.min(5000, Math.max(1, req.pageSize || 500));
      const after = req.pageToken ? Number.parseInt(req.pageToken, 10) : -1;
      if (!Number.isInteger(after)) throw validation('page_token is invalid');
      const rows = await resultsAfter(pool, run.id, after, size);
      return {
        run: toSnapshot(run, links),
        nextPageToken: rows.length === size ? String(rows[rows.length - 1]!.seq) : '',
        results: rows.map((r) => ({
          id: r.id,
          runId: r.runId,
          projectId: r.projectId,
          testId: r.testId,
          file: r.file,
          titlePath: r.titlePath,
          projectName: r.projectName,
          status: r.status,
          outcome: r.outcome,
          durationMs: BigInt(r.durationMs),
          attempts: r.attemptCount,
          quarantined: r.quarantined,
          tags: r.tags,
          errorMessage: r.errorMessage ?? '',
          errorFingerprint: r.errorGroupId ?? '',
        })),
      };
    },

    async getRunSnapshot(req) {
      const run = await findRun(pool, undefined, req.runId);
      if (!run) throw notFound('Run');
      return { run: toSnapshot(run, links), projectId: run.projectId, orgId: run.orgId };
    },

    async scanRuns(req) {
      const size = Math.min(5000, Math.max(1, req.pageSize || 500));
      const after = req.pageToken || undefined;
      if (after !== undefined && req.projectId && !/^\d{1,9}$/.test(after)) throw validation('page_token is invalid');
      const rows = await scanRuns(pool, req.projectId || undefined, after, size);
      const last = rows[rows.length - 1];
      return {
        runs: rows.map((r) => ({ projectId: r.projectId, orgId: r.orgId, run: toSnapshot(r, links) })),
        nextPageToken: rows.length === size && last ? (req.projectId ? String(last.counter) : last.id) : '',
      };
    },
  };
}
