/** A run as the public TestRunListItem (spec §2.5) and as the lifecycle event's RunSnapshot: one mapping. */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RunSnapshotSchema, type RunSnapshot } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import type { RunRow } from '../store/runs';

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

export function toSnapshot(run: RunRow, links: Links): RunSnapshot {
  const s = run.stats;
  return create(RunSnapshotSchema, {
    id: run.id,
    counter: BigInt(run.counter),
    status: run.status,
    startTime: timestampFromDate(run.startTime),
    endTime: run.endTime ? timestampFromDate(run.endTime) : undefined,
    duration: BigInt(run.status === 'running' ? Math.max(0, Date.now() - run.startTime.getTime()) : run.durationMs),
    testStats: {
      total: s.total,
      passed: s.passed,
      failed: s.failed,
      skipped: s.skipped,
      flaky: s.flaky,
      timedOut: s.timedOut,
      totalAttempts: s.totalAttempts,
      retriedTests: s.retriedTests,
    },
    git: {
      branch: run.branch,
      environment: run.environment,
      commit: { hash: run.commitHash, message: run.commitMessage, author: run.commitAuthor },
    },
    url: links.run(run.projectId, run.id),
    tags: run.tags,
  });
}
