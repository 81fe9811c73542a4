/**
 * The `debug-bundle` family (CONTRACT §2, §9): bundles at run, suite (spec file) and test scope; the deepest id
 * given wins (caseId > suiteId > runId). `format=md` renders the same bundle as Markdown.
 */
import type { ServiceImpl } from '@connectrpc/connect';
import type { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { notFound, validation } from '@assay/errors';
import {
  bundleFormat,
  type BundleJson,
  type FailingTestJson,
  type RunBundleJson,
  type SuiteBundleJson,
  type TestBundleJson,
  type WindowPointJson,
} from '@assay/contracts/runs/debug-bundle';
import { structOf, type TestCaseJson } from '@assay/contracts/runs/test-runs';
import { BUNDLE_MAX_LENGTH, type TestStatusName } from '@assay/contracts/runs/values';
import type { Wiring } from '../wiring';
import { findRun, type RunRow } from '../store/test-runs';
import {
  allRunResults,
  attemptsOf,
  findResult,
  latestRunWithFile,
  projectFiles,
  testHistory,
  type HistoryRow,
  type ResultRow,
} from '../store/test-cases';
import { attemptJson, retryCommandOf, runJson, specIdOf, testCaseJson, truncate } from '../domain/documents';
import { bundleMarkdown } from '../domain/bundle-markdown';
import { enumValue } from '../domain/values';

/** How far back a test's failure window looks on its branch. */
const WINDOW_RUNS = 200;
const passing = (s: TestStatusName) => s === 'passed' || s === 'flaky';

export function debugBundleHandlers(w: Wiring): Pick<ServiceImpl<typeof RunsService>, 'getDebugBundle'> {
  const { pool, links } = w;

  const failingOf = (rs: ResultRow[], max: number): TestCaseJson[] =>
    rs
      .filter((r) => r.outcome === 'unexpected')
      .map((r) => ({ ...testCaseJson(r, links), error: r.errorMessage ? { message: truncate(r.errorMessage, max) } : null }));

  async function runBundle(run: RunRow, max: number): Promise<RunBundleJson> {
    const results = await allRunResults(pool, run.id);
    const bad = results.filter((r) => r.outcome === 'unexpected' || r.outcome === 'flaky');
    const files = new Map<string, { failed: number; flaky: number }>();
    for (const r of bad) {
      const f = files.get(r.file) ?? { failed: 0, flaky: 0 };
      if (r.outcome === 'unexpected') f.failed++;
      else f.flaky++;
      files.set(r.file, f);
    }
    // The same test failing in several browser projects is one entry.
    const dedup = new Map<string, FailingTestJson>();
    for (const t of failingOf(results, max)) {
      const key = `${t.file}\u0000${t.fullTitle}`;
      const seen = dedup.get(key);
      if (seen) {
        seen.occurrences++;
        seen.projects.push(t.projectName);
      } else dedup.set(key, { ...t, occurrences: 1, projects: [t.projectName] });
    }
    return {
      scope: 'run',
      run: runJson(run, links, w.clock()),
      failingSuites: [...files].map(([file, c]) => ({ id: specIdOf(run.projectId, file), file, ...c })),
      failingTests: [...dedup.values()],
      links: { run: links.run(run.projectId, run.id) },
    };
  }

  async function suiteBundle(run: RunRow, file: string, max: number): Promise<SuiteBundleJson> {
    const results = (await allRunResults(pool, run.id)).filter((r) => r.file === file);
    const specId = specIdOf(run.projectId, file);
    return {
      scope: 'suite',
      run: runJson(run, links, w.clock()),
      suite: { id: specId, file, total: results.length },
      failingTests: failingOf(results, max),
      flakyTests: results.filter((r) => r.outcome === 'flaky').map((r) => testCaseJson(r, links)),
      links: { run: links.run(run.projectId, run.id), suite: links.spec(run.projectId, run.id, specId) },
    };
  }

  const point = (h: HistoryRow | undefined): WindowPointJson | null =>
    h
      ? {
          runId: h.runId,
          runCounter: h.runCounter,
          caseId: h.id,
          status: h.publicStatus,
          at: h.runStartTime.toISOString(),
          commit: { hash: h.commitHash, message: h.commitMessage, author: h.commitAuthor },
          url: links.run(h.projectId, h.runId),
        }
      : null;

  async function testBundle(r: ResultRow, max: number): Promise<TestBundleJson> {
    const run = (await findRun(pool, r.projectId, r.runId))!;
    const attempts = await attemptsOf(pool, r.id);
    const failing = [...attempts].reverse().find((a) => a.errors.length > 0);
    const shown = failing ?? attempts[attempts.length - 1];
    // Failure window: on this branch, the last run where this test passed and the first failing run after it.
    const hist = await testHistory(pool, r.projectId, {
      testId: r.testId,
      branch: run.branch,
      before: run.startTime,
      limit: WINDOW_RUNS,
      offset: 0,
    });
    const lastPassIdx = hist.rows.findIndex((h) => passing(h.publicStatus));
    const failingRuns = (lastPassIdx === -1 ? hist.rows : hist.rows.slice(0, lastPassIdx)).filter(
      (h) => !passing(h.publicStatus) && h.publicStatus !== 'skipped',
    );
    const artifacts = await w.artifacts.attachmentsOf(r.id, attempts);
    // The last attempt's trace (the one that decided the outcome), stored ones first.
    const traces = artifacts.filter((a) => a.name === 'trace' || /trace.*\.zip$/i.test(a.path ?? ''));
    const trace = [...traces].reverse().find((a) => a.artifact) ?? traces[traces.length - 1];
    return {
      scope: 'test',
      run: runJson(run, links, w.clock()),
      test: { ...testCaseJson(r, links), location: r.location, annotations: r.annotations },
      error: shown ? attemptJson(shown, max).error : null,
      steps: shown?.steps ?? [],
      attempts: attempts.map((a) => ({
        retry: a.retry,
        status: a.status,
        duration: a.durationMs,
        startTime: a.startedAt ? a.startedAt.toISOString() : null,
        error: a.errors[0] ? { message: truncate(a.errors[0].message, max), location: a.errors[0].location ?? null } : null,
      })),
      failureWindow: {
        branch: run.branch,
        lastPassing: point(lastPassIdx === -1 ? undefined : hist.rows[lastPassIdx]),
        firstFailing: point(failingRuns[failingRuns.length - 1]),
        failingRunsSince: failingRuns.length,
      },
      artifacts,
      trace: trace
        ? {
            name: trace.name,
            path: trace.path ?? null,
            contentType: trace.contentType,
            retry: trace.retry,
            url: trace.artifact?.url ?? null,
            viewerUrl: trace.artifact ? w.artifacts.viewerUrl(trace.artifact.url) : null,
          }
        : null,
      links: {
        run: links.run(r.projectId, r.runId),
        testCase: links.testCase(r.projectId, r.runId, r.id),
        history: links.testHistory(r.projectId, r.testId),
      },
      retryCommand: retryCommandOf(r),
    };
  }

  return {
    async getDebugBundle(req) {
      const max = req.maxLength > 0 ? req.maxLength : BUNDLE_MAX_LENGTH.default;
      const format = req.format === undefined ? 'json' : enumValue(bundleFormat, req.format, 'query.format');
      let bundle: BundleJson;
      if (req.caseId) {
        const r = await findResult(pool, req.projectId, req.caseId);
        if (!r) throw notFound('Test case');
        bundle = await testBundle(r, max);
      } else if (req.suiteId) {
        const file = (await projectFiles(pool, req.projectId)).find((f) => specIdOf(req.projectId, f) === req.suiteId);
        if (!file) throw notFound('Suite');
        const runId = req.runId || (await latestRunWithFile(pool, req.projectId, file));
        const run = runId ? await findRun(pool, req.projectId, runId) : undefined;
        if (!run) throw notFound('Run');
        bundle = await suiteBundle(run, file, max);
      } else if (req.runId) {
        const run = await findRun(pool, req.projectId, req.runId);
        if (!run) throw notFound('Run');
        bundle = await runBundle(run, max);
      } else {
        throw validation('one of runId, suiteId or caseId is required', [
          { path: 'query.runId', message: 'runId, suiteId or caseId is required' },
        ]);
      }
      return { bundle: structOf(bundle), markdown: format === 'md' ? bundleMarkdown(bundle) : '' };
    },
  };
}
