/** A run as the lifecycle event's RunSnapshot (the public TestRunListItem, spec §2.5, maps from it), and deep links. */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RunSnapshotSchema, type RunSnapshot } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { runStatus, type TestRunJson, type TestStatsJson } from '@assay/contracts/runs/test-runs';
import type { RunRow } from '../store/test-runs';

/** Deep links into the web UI, built from PUBLIC_UI_URL. */
export class Links {
  private readonly base: string;
  constructor(publicUiUrl: string) {
    this.base = publicUiUrl.replace(/\/+$/, '');
  }
  run(projectId: string, runId: string): string {
    return `${this.base}/projects/${projectId}/runs/${runId}`;
  }
  testCase(projectId: string, runId: string, caseId: string): string {
    return `${this.run(projectId, runId)}/test-cases/${caseId}`;
  }
  spec(projectId: string, runId: string, specId: string): string {
    return `${this.run(projectId, runId)}/specs/${specId}`;
  }
  testHistory(projectId: string, testId: string): string {
    return `${this.base}/projects/${projectId}/tests/${testId}`;
  }
}

/** A running run's duration is its time so far (at `now`); a finished one's is recorded. */
export const durationOf = (run: Pick<RunRow, 'status' | 'startTime' | 'durationMs'>, now: Date): number =>
  run.status === 'running' ? Math.max(0, now.getTime() - run.startTime.getTime()) : run.durationMs;

/** The run's TestStats (spec §2.5): its counters without the internal ones (interrupted, quarantined). */
export function testStatsOf({ stats: s }: Pick<RunRow, 'stats'>): TestStatsJson {
  return {
    total: s.total,
    passed: s.passed,
    failed: s.failed,
    skipped: s.skipped,
    flaky: s.flaky,
    timedOut: s.timedOut,
    totalAttempts: s.totalAttempts,
    retriedTests: s.retriedTests,
  };
}

export function toSnapshot(run: RunRow, links: Links, now: Date): RunSnapshot {
  return create(RunSnapshotSchema, {
    id: run.id,
    counter: BigInt(run.counter),
    status: runStatus.toProto(run.status),
    startTime: timestampFromDate(run.startTime),
    endTime: run.endTime ? timestampFromDate(run.endTime) : undefined,
    duration: BigInt(durationOf(run, now)),
    testStats: testStatsOf(run),
    git: {
      branch: run.branch,
      environment: run.environment,
      commit: { hash: run.commitHash, message: run.commitMessage, author: run.commitAuthor },
    },
    url: links.run(run.projectId, run.id),
    tags: run.tags,
  });
}

/**
 * The run as the public list shows it (TestRun, spec §2.5): what `runSnapshotToJson(toSnapshot(run))` gives,
 * built straight from the row for the list read that answers JSON (no message in between; a unit test holds
 * the two equal).
 */
export function toRunJson(run: RunRow, links: Links, now: Date): TestRunJson {
  return {
    id: run.id,
    counter: Number(run.counter),
    status: run.status,
    startTime: run.startTime.toISOString(),
    endTime: run.endTime ? run.endTime.toISOString() : null,
    duration: durationOf(run, now),
    testStats: testStatsOf(run),
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
