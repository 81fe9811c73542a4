/** Public JSON shapes of the runs domain (what crosses as google.protobuf.Struct; the gateway declares them). */
import { createHash } from 'node:crypto';
import type { JsonObject } from '@bufbuild/protobuf';
import type { RunRow } from '../store/runs';
import type { AttemptRow, HistoryRow, ResultRow } from '../store/results';
import { fullTitleOf } from '../domain/identity';
import type { Links } from '../domain/snapshot';

/** A plain JSON object for a `google.protobuf.Struct` field (protobuf-es represents those as JsonObject). */
export const toStruct = (o: object): JsonObject => JSON.parse(JSON.stringify(o)) as JsonObject;

/** Id of a spec file in a project (the debug bundle's `suiteId`). */
export const specIdOf = (projectId: string, file: string) =>
  createHash('sha256')
    .update(JSON.stringify(['spec', projectId, file]))
    .digest('hex')
    .slice(0, 24);

export function runJson(run: RunRow, links: Links) {
  return {
    id: run.id,
    counter: run.counter,
    status: run.status,
    startTime: run.startTime.toISOString(),
    endTime: run.endTime ? run.endTime.toISOString() : null,
    duration: run.status === 'running' ? Math.max(0, Date.now() - run.startTime.getTime()) : run.durationMs,
    testStats: {
      total: run.stats.total,
      passed: run.stats.passed,
      failed: run.stats.failed,
      skipped: run.stats.skipped,
      flaky: run.stats.flaky,
      timedOut: run.stats.timedOut,
      totalAttempts: run.stats.totalAttempts,
      retriedTests: run.stats.retriedTests,
    },
    metadata: {
      git: {
        branch: run.branch,
        environment: run.environment,
        commit: { hash: run.commitHash, message: run.commitMessage, author: run.commitAuthor },
      },
    },
    url: links.run(run.projectId, run.id),
  };
}

export const truncate = (s: string | undefined | null, max: number) =>
  s === undefined || s === null ? s : s.length > max ? `${s.slice(0, max)}… [truncated ${s.length - max} characters]` : s;

export function testCaseJson(r: ResultRow, links: Links) {
  return {
    id: r.id,
    testId: r.testId,
    runId: r.runId,
    title: r.titlePath[r.titlePath.length - 1] ?? '',
    titlePath: r.titlePath,
    fullTitle: fullTitleOf(r.titlePath),
    file: r.file,
    projectName: r.projectName,
    status: r.publicStatus,
    outcome: r.outcome,
    duration: r.durationMs,
    attempts: r.attemptCount,
    retries: Math.max(0, r.attemptCount - 1),
    quarantined: r.quarantined,
    tags: r.tags,
    error: r.errorMessage ? { message: r.errorMessage } : null,
    startedAt: r.startedAt ? r.startedAt.toISOString() : null,
    url: links.testCase(r.projectId, r.runId, r.id),
  };
}

export function attemptJson(a: AttemptRow, max = Infinity) {
  const first = a.errors[0];
  return {
    retry: a.retry,
    status: a.status,
    duration: a.durationMs,
    startTime: a.startedAt ? a.startedAt.toISOString() : null,
    workerIndex: a.workerIndex,
    error: first ? { ...first, message: truncate(first.message, max), stack: truncate(first.stack, max) } : null,
    errors: a.errors,
    steps: a.steps,
    stdout: a.stdout,
    stderr: a.stderr,
    attachments: a.attachments,
  };
}

export function historyItemJson(h: HistoryRow, links: Links) {
  return {
    caseId: h.id,
    testId: h.testId,
    runId: h.runId,
    runCounter: h.runCounter,
    title: fullTitleOf(h.titlePath),
    file: h.file,
    projectName: h.projectName,
    status: h.publicStatus,
    outcome: h.outcome,
    duration: h.durationMs,
    retries: Math.max(0, h.attemptCount - 1),
    branch: h.branch,
    environment: h.environment,
    commit: { hash: h.commitHash, message: h.commitMessage, author: h.commitAuthor },
    startedAt: h.runStartTime.toISOString(),
    error: h.errorMessage ? { message: h.errorMessage } : null,
    url: links.testCase(h.projectId, h.runId, h.id),
  };
}

/** Failure category of a failed result, from its status and error text. */
export function errorCategoryOf(r: Pick<ResultRow, 'status' | 'errorMessage'>): string {
  if (r.status === 'timedOut') return 'timeout';
  const m = r.errorMessage ?? '';
  if (/expect\(|assert|toBe|toEqual|toHave|toMatch|toContain/i.test(m)) return 'assertion';
  if (/net::|ECONN|ENOTFOUND|fetch failed|socket|network/i.test(m)) return 'network';
  if (/locator|selector|element|waiting for/i.test(m)) return 'element';
  if (/timeout|timed out/i.test(m)) return 'timeout';
  return 'other';
}

/** A shell line that reruns just this test. */
export function retryCommandOf(r: Pick<ResultRow, 'file' | 'titlePath' | 'projectName'>): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const title = r.titlePath[r.titlePath.length - 1] ?? '';
  const grep = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `npx playwright test ${q(r.file)} -g ${q(grep)}${r.projectName ? ` --project=${q(r.projectName)}` : ''}`;
}
