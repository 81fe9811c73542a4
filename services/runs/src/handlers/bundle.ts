/**
 * Debug bundles (CONTRACT §2, §9) at run, suite (spec file) and test scope; the deepest id given wins
 * (caseId > suiteId > runId). `format=md` renders the same bundle as Markdown.
 */
import type { ServiceImpl } from '@connectrpc/connect';
import type { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { notFound, validation } from '@assay/errors';
import type { Wiring } from '../wiring';
import { findRun, type RunRow } from '../store/runs';
import { allRunResults, attemptsOf, findResult, latestRunWithFile, projectFiles, testHistory, type ResultRow } from '../store/results';
import { attemptJson, retryCommandOf, runJson, specIdOf, testCaseJson, toStruct, truncate } from './view';

const DEFAULT_MAX = 4000;
type Bundle = Record<string, unknown>;

export function bundleHandlers(rt: Wiring): Pick<ServiceImpl<typeof RunsService>, 'getDebugBundle'> {
  const { pool, links } = rt;

  const failingOf = (rs: ResultRow[], max: number) =>
    rs
      .filter((r) => r.outcome === 'unexpected')
      .map((r) => ({ ...testCaseJson(r, links), error: r.errorMessage ? { message: truncate(r.errorMessage, max) ?? '' } : null }));

  async function runBundle(run: RunRow, max: number): Promise<Bundle> {
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
    const dedup = new Map<string, ReturnType<typeof failingOf>[number] & { occurrences: number; projects: string[] }>();
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
      run: runJson(run, links),
      failingSuites: [...files].map(([file, c]) => ({ id: specIdOf(run.projectId, file), file, ...c })),
      failingTests: [...dedup.values()],
      links: { run: links.run(run.projectId, run.id) },
    };
  }

  async function suiteBundle(run: RunRow, file: string, max: number): Promise<Bundle> {
    const results = (await allRunResults(pool, run.id)).filter((r) => r.file === file);
    const specId = specIdOf(run.projectId, file);
    return {
      scope: 'suite',
      run: runJson(run, links),
      suite: { id: specId, file, total: results.length },
      failingTests: failingOf(results, max),
      flakyTests: results.filter((r) => r.outcome === 'flaky').map((r) => testCaseJson(r, links)),
      links: { run: links.run(run.projectId, run.id), suite: links.spec(run.projectId, run.id, specId) },
    };
  }

  async function testBundle(r: ResultRow, max: number): Promise<Bundle> {
    const run = (await findRun(pool, r.projectId, r.runId))!;
    const attempts = await attemptsOf(pool, r.id);
    const failing = [...attempts].reverse().find((a) => a.errors.length > 0);
    const shown = failing ?? attempts[attempts.length - 1];
    // Failure window: on this branch, the last run where this test passed and the first failing run after it.
    const hist = await testHistory(pool, r.projectId, {
      testId: r.testId,
      branch: run.branch,
      before: run.startTime,
      limit: 200,
      offset: 0,
    });
    const ok = (s: string) => s === 'passed' || s === 'flaky';
    const lastPassIdx = hist.rows.findIndex((h) => ok(h.publicStatus));
    const failingRuns = (lastPassIdx === -1 ? hist.rows : hist.rows.slice(0, lastPassIdx)).filter(
      (h) => !ok(h.publicStatus) && h.publicStatus !== 'skipped',
    );
    const point = (h: (typeof hist.rows)[number] | undefined) =>
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
    const artifacts = attempts.flatMap((a) => a.attachments.map((x) => ({ ...x, retry: a.retry })));
    const trace = artifacts.find((a) => a.name === 'trace' || /trace.*\.zip$/i.test(a.path ?? ''));
    const err = shown ? attemptJson(shown, max).error : null;
    return {
      scope: 'test',
      run: runJson(run, links),
      test: { ...testCaseJson(r, links), location: r.location, annotations: r.annotations },
      error: err,
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
      trace: trace ? { name: trace.name, path: trace.path ?? null, contentType: trace.contentType, retry: trace.retry } : null,
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
      const max = req.maxLength > 0 ? req.maxLength : DEFAULT_MAX;
      if (req.format && req.format !== 'json' && req.format !== 'md')
        throw validation('format must be json or md', [{ path: 'query.format', message: 'must be one of "json", "md"' }]);
      let bundle: Bundle;
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
      return { bundle: toStruct(bundle), markdown: req.format === 'md' ? toMarkdown(bundle) : '' };
    },
  };
}

// ---- Markdown -------------------------------------------------------------------------------------------------

/* eslint-disable @typescript-eslint/no-explicit-any -- rendering the bundle built above */
const fence = (s: string) => `\`\`\`\n${s.replace(/```/g, '`\u200b``')}\n\`\`\``;

function stepsMd(steps: any[], depth = 0): string[] {
  return steps.flatMap((s) => [
    `${'  '.repeat(depth)}- ${s.error ? '✗' : '✓'} ${s.title} (${s.duration} ms)${s.error ? ` — ${String(s.error.message).split('\n')[0]}` : ''}`,
    ...stepsMd(s.steps ?? [], depth + 1),
  ]);
}

function runHeader(run: any): string[] {
  const c = run.metadata.git.commit;
  return [
    `- Run: #${run.counter} (${run.status}) — ${run.url}`,
    `- Branch: ${run.metadata.git.branch || '—'}; environment: ${run.metadata.git.environment || '—'}`,
    `- Commit: ${c.hash || '—'}${c.message ? ` "${c.message}"` : ''}${c.author ? ` by ${c.author}` : ''}`,
    `- Tests: ${run.testStats.total} total, ${run.testStats.passed} passed, ${run.testStats.failed} failed, ${run.testStats.flaky} flaky, ${run.testStats.skipped} skipped`,
  ];
}

function testsMd(tests: any[]): string[] {
  return tests.length === 0
    ? ['None.']
    : tests.map(
        (t) =>
          `- **${t.fullTitle}** (${t.file}${t.projectName ? `, ${t.projectName}` : ''}) — ${t.status}${t.error ? `: ${String(t.error.message).split('\n')[0]}` : ''} — ${t.url}`,
      );
}

export function toMarkdown(b: any): string {
  const out: string[] = [];
  if (b.scope === 'test') {
    out.push(`# Debug bundle: ${b.test.fullTitle}`, '', `- File: ${b.test.file}${b.test.location ? `:${b.test.location.line}` : ''}`);
    out.push(`- Status: ${b.test.status}; attempts: ${b.test.attempts}`, ...runHeader(b.run), '', '## Error', '');
    out.push(b.error ? fence([b.error.message, b.error.snippet, b.error.stack].filter(Boolean).join('\n\n')) : 'No error recorded.');
    out.push('', '## Steps', '', ...(b.steps.length ? stepsMd(b.steps) : ['No steps recorded.']));
    out.push(
      '',
      '## Attempts',
      '',
      ...b.attempts.map(
        (a: any) =>
          `- Attempt ${a.retry + 1}: ${a.status} (${a.duration} ms)${a.error ? ` — ${String(a.error.message).split('\n')[0]}` : ''}`,
      ),
    );
    const w = b.failureWindow;
    out.push('', '## Failure window', '', `- Branch: ${w.branch || '—'}`);
    out.push(
      `- Last passing: ${w.lastPassing ? `run #${w.lastPassing.runCounter} at ${w.lastPassing.at}, commit ${w.lastPassing.commit.hash || '—'}` : 'none on record'}`,
    );
    out.push(
      `- First failing: ${w.firstFailing ? `run #${w.firstFailing.runCounter} at ${w.firstFailing.at}, commit ${w.firstFailing.commit.hash || '—'}` : 'none'}`,
    );
    out.push(
      '',
      '## Artifacts',
      '',
      ...(b.artifacts.length ? b.artifacts.map((a: any) => `- ${a.name} (${a.contentType})${a.path ? `: ${a.path}` : ''}`) : ['None.']),
    );
    out.push('', '## Trace', '', b.trace ? `- ${b.trace.path ?? b.trace.name}` : 'No trace recorded.');
    out.push('', '## Links', '', ...Object.entries(b.links).map(([k, v]) => `- ${k}: ${v}`));
    out.push('', '## Retry', '', fence(b.retryCommand));
  } else if (b.scope === 'suite') {
    out.push(`# Debug bundle: ${b.suite.file}`, '', ...runHeader(b.run), '', '## Failing tests', '', ...testsMd(b.failingTests));
    out.push(
      '',
      '## Flaky tests',
      '',
      ...testsMd(b.flakyTests),
      '',
      '## Links',
      '',
      ...Object.entries(b.links).map(([k, v]) => `- ${k}: ${v}`),
    );
  } else {
    out.push(`# Debug bundle: run #${b.run.counter}`, '', ...runHeader(b.run), '', '## Failing suites', '');
    out.push(
      ...(b.failingSuites.length ? b.failingSuites.map((s: any) => `- ${s.file}: ${s.failed} failed, ${s.flaky} flaky`) : ['None.']),
    );
    out.push(
      '',
      '## Failing tests',
      '',
      ...testsMd(b.failingTests),
      '',
      '## Links',
      '',
      ...Object.entries(b.links).map(([k, v]) => `- ${k}: ${v}`),
    );
  }
  return `${out.join('\n')}\n`;
}
