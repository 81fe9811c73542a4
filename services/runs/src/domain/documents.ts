/**
 * The runs domain's JSON documents built from rows: what crosses as `google.protobuf.Struct` (test cases,
 * attempts, history items, bundles), typed by the contract (@assay/contracts/runs) where it declares them.
 */
import { createHash } from 'node:crypto';
import { runSnapshotToJson, type TestCaseJson, type TestRunJson } from '@assay/contracts/runs/test-runs';
import type { AttemptJson, HistoryItemJson } from '@assay/contracts/runs/test-cases';
import type { ErrorCategoryName } from '@assay/contracts/runs/values';
import type { RunRow } from '../store/test-runs';
import type { AttemptRow, HistoryRow, ResultRow } from '../store/test-cases';
import { fullTitleOf } from './identity';
import { toSnapshot, type Links } from './snapshot';

/** Id of a spec file in a project (the debug bundle's `suiteId`). */
export const specIdOf = (projectId: string, file: string) =>
  createHash('sha256')
    .update(JSON.stringify(['spec', projectId, file]))
    .digest('hex')
    .slice(0, 24);

/** The run as TestRunListItem: the same mapping the gateway applies to the RunSnapshot. */
export const runJson = (run: RunRow, links: Links, now: Date): TestRunJson => runSnapshotToJson(toSnapshot(run, links, now));

/** Text cut to `max` characters, saying how much was cut. */
export function truncate(s: string, max: number): string;
export function truncate(s: string | undefined, max: number): string | undefined;
export function truncate(s: string | undefined, max: number): string | undefined {
  return s === undefined ? s : s.length > max ? `${s.slice(0, max)}… [truncated ${s.length - max} characters]` : s;
}

export function testCaseJson(r: ResultRow, links: Links): TestCaseJson {
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

export function attemptJson(a: AttemptRow, max = Infinity): AttemptJson {
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

export function historyItemJson(h: HistoryRow, links: Links): HistoryItemJson {
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
export function errorCategoryOf(r: Pick<ResultRow, 'status' | 'errorMessage'>): ErrorCategoryName {
  if (r.status === 'timedOut') return 'timeout';
  const m = r.errorMessage ?? '';
  if (/expect\(|assert|toBe|toEqual|toHave|toMatch|toContain/i.test(m)) return 'assertion';
  if (/net::|ECONN|ENOTFOUND|fetch failed|socket|network/i.test(m)) return 'network';
  if (/locator|selector|element|waiting for/i.test(m)) return 'element';
  if (/timeout|timed out/i.test(m)) return 'timeout';
  return 'other';
}

/**
 * A shell line that reruns just this test. Every ingested value is single-quoted for the shell, the options come
 * first and the file after `--`, so a file named like an option (`--config=evil.js`) stays a file filter.
 */
export function retryCommandOf(r: Pick<ResultRow, 'file' | 'titlePath' | 'projectName'>): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const title = r.titlePath[r.titlePath.length - 1] ?? '';
  const grep = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `npx playwright test -g ${q(grep)}${r.projectName ? ` --project=${q(r.projectName)}` : ''} -- ${q(r.file)}`;
}
