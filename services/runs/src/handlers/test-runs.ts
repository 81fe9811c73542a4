/**
 * The `test-runs` family (RunsService): runs, a run's detail sections and its test cases, the web app's compact
 * rows of a run; and the reads other services page through (analytics' folds and rebuilds, reports): a run's
 * results, one run's snapshot, every run.
 */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { RunResultView, type RunsAdminService, type RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { withTransaction } from '@assay/db';
import { notFound, validation } from '@assay/errors';
import { paging, pageInfo } from '@assay/service-kit';
import { attemptStatus, testOutcome } from '@assay/contracts/runs/test-cases';
import { RUN_ROWS_LIMIT } from '@assay/contracts/runs/run-rows';
import { runSection, runStatus, structOf, testStatus, type RunDetailSectionsJson } from '@assay/contracts/runs/test-runs';
import type { ErrorCategoryName } from '@assay/contracts/runs/values';
import type { Wiring } from '../wiring';
import { artifactsOfRun, expireRunArtifacts } from '../store/artifacts';
import { dropPendingEvents } from '../store/outbox';
import { attachmentKey } from '../artifacts/artifacts';

/** Stored artifacts the run detail lists at most (its attachments list stops at 1,000). */
const RUN_ARTIFACTS_LIMIT = 2000;
import { deleteRun, findRun, listRuns, lockRun, scanRuns } from '../store/test-runs';
import {
  allRunResults,
  runFailureCounts,
  errorGroupsOf,
  listRunResults,
  resultsAfter,
  runAttachments,
  runRows,
  runSpecFiles,
  tagStatsOf,
  type ResultRow,
  type RollupResultRow,
} from '../store/test-cases';
import { toRunJson, toSnapshot } from '../domain/snapshot';
import { fullTitleOf } from '../domain/identity';
import { errorCategoryOf, specIdOf, testCaseJson } from '../domain/documents';
import { enumValue } from '../domain/values';

/** ListRunResults' views (unspecified is the full one). */
const RESULT_VIEWS = new Set([RunResultView.UNSPECIFIED, RunResultView.FULL, RunResultView.ROLLUP]);
const rollupResult = (r: RollupResultRow) => ({
  testId: r.testId,
  file: r.file,
  titlePath: r.titlePath,
  projectName: r.projectName,
  outcome: testOutcome.toProto(r.outcome),
  durationMs: BigInt(r.durationMs),
  tags: r.tags,
});

/** Page sizes of the token-paged reads other services make. */
const SCAN_PAGE = { default: 500, max: 5000 };
const scanSize = (n: number) => Math.min(SCAN_PAGE.max, Math.max(1, n || SCAN_PAGE.default));

type Rpcs = Pick<
  ServiceImpl<typeof RunsService>,
  'listRuns' | 'getRun' | 'listRunTestCases' | 'listRunRows' | 'listRunResults' | 'getRunSnapshot' | 'scanRuns'
>;

/** `assay run:delete`: the run, its results and attempts go in one transaction; its artifacts expire at once. */
export function runAdminHandlers(w: Wiring): Pick<ServiceImpl<typeof RunsAdminService>, 'deleteRun'> {
  return {
    async deleteRun(req) {
      if (!req.projectId) throw validation('project is required', [{ path: 'project', message: 'is required' }]);
      if (!req.runId) throw validation('run is required', [{ path: 'run', message: 'is required' }]);
      return withTransaction(w.pool, async (c) => {
        // The run's lock: an ingestion call into it waits, then finds no run (404).
        const run = await lockRun(c, req.projectId, req.runId);
        if (!run) throw notFound('Run');
        const artifacts = await expireRunArtifacts(c, run.id, w.clock());
        await dropPendingEvents(c, run.id);
        const results = await deleteRun(c, run.id);
        return { runId: run.id, results: BigInt(results), artifacts: BigInt(artifacts) };
      });
    },
  };
}

export function testRunHandlers(w: Wiring): Rpcs {
  const { pool, links } = w;
  return {
    async listRuns(req) {
      const p = paging(req.page);
      const res = await listRuns(pool, req.projectId, {
        limit: p.limit,
        offset: p.offset,
        from: req.startTime ? timestampDate(req.startTime) : undefined,
        to: req.endTime ? timestampDate(req.endTime) : undefined,
        branch: req.branch,
        environment: req.environment,
        status: req.status === undefined ? undefined : enumValue(runStatus, req.status, 'query.status'),
      });
      const now = w.clock();
      const page = pageInfo(p, res.total);
      if (req.json) return { runsJson: Buffer.from(JSON.stringify(res.rows.map((r) => toRunJson(r, links, now)))), page };
      return { runs: res.rows.map((r) => toSnapshot(r, links, now)), page };
    },

    async getRun(req) {
      const run = await findRun(pool, req.projectId, req.runId);
      if (!run) throw notFound('Run');
      const sections = new Set(req.include.map((s, i) => enumValue(runSection, s, `query.include.${i}`)));
      const { completed, failures } = await runFailureCounts(pool, run.id);
      const categories: Record<ErrorCategoryName, number> = { assertion: 0, timeout: 0, network: 0, element: 0, other: 0 };
      for (const f of failures) categories[errorCategoryOf(f)]++;
      const detail: RunDetailSectionsJson = {
        errorCategory: { total: failures.length, categories },
        liveStats: {
          isRunning: run.status === 'running',
          completed,
          expected: run.totalTestsExpected,
          remaining: run.totalTestsExpected === null ? null : Math.max(0, run.totalTestsExpected - completed),
          progress: run.totalTestsExpected ? Math.min(100, Math.round((completed / run.totalTestsExpected) * 100)) : null,
          quarantined: run.stats.quarantined,
          interrupted: run.stats.interrupted,
          lastActivityAt: run.lastActivityAt.toISOString(),
        },
        tagStats: await tagStatsOf(pool, run.id),
      };
      if (sections.has('errors')) detail.errorGroups = await errorGroupsOf(pool, run.id);
      if (sections.has('coverage')) detail.coverage = run.coverage ?? null;
      if (sections.has('specs')) {
        const results = await allRunResults(pool, run.id);
        const byFile = new Map<string, ResultRow[]>();
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
      if (sections.has('artifacts')) {
        const [atts, stored] = await Promise.all([runAttachments(pool, run.id), artifactsOfRun(pool, run.id, RUN_ARTIFACTS_LIMIT)]);
        const byKey = new Map(
          stored.filter((a) => a.resultId).map((a) => [`${a.resultId}\n${attachmentKey(a.retry!, a.name, a.sourcePath)}`, a]),
        );
        const files = stored.filter((a) => !a.resultId).map((a) => ({ path: a.sourcePath, ...w.artifacts.json(a) }));
        detail.artifacts =
          atts.length === 0 && files.length === 0
            ? null
            : {
                count: atts.length,
                storedBytes: stored.reduce((n, a) => n + a.sizeBytes, 0),
                items: atts.map((a) => {
                  const s = byKey.get(`${a.caseId}\n${attachmentKey(a.retry, a.attachment.name, a.attachment.path ?? '')}`);
                  return {
                    caseId: a.caseId,
                    title: fullTitleOf(a.titlePath),
                    retry: a.retry,
                    ...a.attachment,
                    artifact: s ? w.artifacts.json(s) : null,
                  };
                }),
                files,
                // The report's folder URL, under which its relative links (data/…) resolve too.
                htmlReport: files.some((f) => f.path === 'html/index.html') ? w.artifacts.urls.htmlReport(run.id, w.clock()).url : null,
              };
      }
      return { run: toSnapshot(run, links, w.clock()), detail: structOf(detail) };
    },

    async listRunTestCases(req) {
      const run = await findRun(pool, req.projectId, req.runId);
      if (!run) throw notFound('Run');
      const status = req.status === undefined ? undefined : enumValue(testStatus, req.status, 'query.status');
      const p = paging(req.page);
      const res = await listRunResults(pool, run.id, { status, limit: p.limit, offset: p.offset });
      return { testCases: res.rows.map((r) => structOf(testCaseJson(r, links))), page: pageInfo(p, res.total) };
    },

    async listRunRows(req) {
      const run = await findRun(pool, req.projectId, req.runId);
      if (!run) throw notFound('Run');
      const limit = Math.min(RUN_ROWS_LIMIT, Math.max(1, req.limit || RUN_ROWS_LIMIT));
      const [files, rows] = await Promise.all([runSpecFiles(pool, run.id), runRows(pool, run.id, limit)]);
      const index = new Map(files.map((f, i) => [f.file, i]));
      return {
        specs: files.map((f) => ({ ...f, id: specIdOf(run.projectId, f.file), durationMs: BigInt(f.durationMs) })),
        rows: rows.map((r) => ({
          id: r.id,
          title: fullTitleOf(r.titlePath),
          spec: index.get(r.file) ?? 0,
          projectName: r.projectName,
          status: testStatus.toProto(r.publicStatus),
          durationMs: BigInt(r.durationMs),
          retries: Math.max(0, r.attemptCount - 1),
          quarantined: r.quarantined,
          errorGroupId: r.errorGroupId ?? '',
        })),
        total: files.reduce((n, f) => n + f.total, 0),
      };
    },

    async listRunResults(req) {
      const run = await findRun(pool, undefined, req.runId);
      if (!run) throw notFound('Run');
      const size = scanSize(req.pageSize);
      // A previous page's end: a result number (an int4 column, so at most 9 digits here: no overflow in SQL).
      if (req.pageToken && !/^\d{1,9}$/.test(req.pageToken)) throw validation('page_token is invalid');
      const after = req.pageToken ? Number(req.pageToken) : -1;
      if (!RESULT_VIEWS.has(req.view)) throw validation('view is invalid');
      const snapshot = toSnapshot(run, links, w.clock());
      const next = (maxSeq: number) => (after + size < maxSeq ? String(after + size) : '');
      if (req.view === RunResultView.ROLLUP) {
        const { rows, maxSeq } = await resultsAfter(pool, run.id, after, size, 'rollup');
        return { run: snapshot, nextPageToken: next(maxSeq), results: rows.map(rollupResult) };
      }
      const { rows, maxSeq } = await resultsAfter(pool, run.id, after, size, 'full');
      return {
        run: snapshot,
        nextPageToken: next(maxSeq),
        results: rows.map((r) => ({
          ...rollupResult(r),
          id: r.id,
          runId: r.runId,
          projectId: r.projectId,
          status: attemptStatus.toProto(r.status),
          attempts: r.attemptCount,
          quarantined: r.quarantined,
          errorMessage: r.errorMessage ?? '',
          errorFingerprint: r.errorGroupId ?? '',
        })),
      };
    },

    async getRunSnapshot(req) {
      const run = await findRun(pool, undefined, req.runId);
      if (!run) throw notFound('Run');
      return { run: toSnapshot(run, links, w.clock()), projectId: run.projectId, orgId: run.orgId };
    },

    async scanRuns(req) {
      const size = scanSize(req.pageSize);
      const after = req.pageToken || undefined;
      if (after !== undefined && req.projectId && !/^\d{1,9}$/.test(after)) throw validation('page_token is invalid');
      const rows = await scanRuns(pool, req.projectId || undefined, after, size);
      const last = rows[rows.length - 1];
      const now = w.clock();
      return {
        runs: rows.map((r) => ({ projectId: r.projectId, orgId: r.orgId, run: toSnapshot(r, links, now) })),
        nextPageToken: rows.length === size && last ? (req.projectId ? String(last.counter) : last.id) : '',
      };
    },
  };
}
