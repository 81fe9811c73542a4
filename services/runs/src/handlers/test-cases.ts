/** The `test-cases` family (RunsService): one test result in detail (with its history if asked) and a test's history. */
import type { ServiceImpl } from '@connectrpc/connect';
import type { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { notFound, validation } from '@assay/errors';
import { paging } from '@assay/service-kit';
import type { TestCaseDetailJson } from '@assay/contracts/runs/test-cases';
import { structOf } from '@assay/contracts/runs/test-runs';
import type { Wiring } from '../wiring';
import { findRun } from '../store/test-runs';
import { attemptsOf, findResult, historySummary, testHistory } from '../store/test-cases';
import { fullTitleOf } from '../domain/identity';
import { attemptJson, historyItemJson, runJson, specIdOf } from '../domain/documents';

type Rpcs = Pick<ServiceImpl<typeof RunsService>, 'getTestCase' | 'getTestCaseHistory'>;

/** How many past results the detail's `history.recent` shows. */
const RECENT_HISTORY = 10;

export function testCaseHandlers(w: Wiring): Rpcs {
  const { pool, links } = w;
  return {
    async getTestCase(req) {
      const r = await findResult(pool, req.projectId, req.caseId);
      if (!r) throw notFound('Test case');
      const run = (await findRun(pool, req.projectId, r.runId))!;
      const attempts = await attemptsOf(pool, r.id);
      const last = attempts[attempts.length - 1];
      const failing = [...attempts].reverse().find((a) => a.errors.length > 0);
      const out: TestCaseDetailJson = {
        id: r.id,
        metadata: {
          run: runJson(run, links, w.clock()),
          test: {
            id: r.testId,
            title: r.titlePath[r.titlePath.length - 1] ?? '',
            titlePath: r.titlePath,
            fullTitle: fullTitleOf(r.titlePath),
            file: r.file,
            specId: specIdOf(r.projectId, r.file),
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
          attachments: await w.artifacts.attachmentsOf(r.id, attempts),
        },
        url: links.testCase(r.projectId, r.runId, r.id),
      };
      if (req.includeHistory) {
        const s = await historySummary(pool, req.projectId, r.testId);
        const recent = await testHistory(pool, req.projectId, { testId: r.testId, limit: RECENT_HISTORY, offset: 0 });
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
      return { testCase: structOf(out) };
    },

    async getTestCaseHistory(req) {
      if (!req.testId && !req.title)
        throw validation('testId or title is required', [{ path: 'query.testId', message: 'testId or title is required' }]);
      const { limit } = paging({ page: 1, limit: req.limit });
      const res = await testHistory(pool, req.projectId, {
        testId: req.testId || undefined,
        title: req.title || undefined,
        branch: req.branch || undefined,
        limit,
        offset: Math.max(0, req.offset),
      });
      return { items: res.rows.map((h) => structOf(historyItemJson(h, links))), total: BigInt(res.total) };
    },
  };
}
