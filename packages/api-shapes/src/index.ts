/**
 * Public JSON shapes built from protobuf messages, one function per shape, so every process that emits the
 * shape (the gateway's reads, the webhooks service's delivered payloads) emits exactly the same JSON.
 */
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { RunSnapshot } from '@assay/proto/assay/events/v1/run_lifecycle_pb';

export const RUN_STATUSES = ['passed', 'failed', 'interrupted', 'incomplete', 'running'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Spec §2.5 TestRunListItem. */
export interface TestRunListItemJson {
  id: string;
  counter: number;
  status: RunStatus;
  startTime: string;
  endTime: string | null;
  duration: number;
  testStats: {
    total: number;
    passed: number;
    failed: number;
    skipped: number;
    flaky: number;
    timedOut: number;
    totalAttempts: number;
    retriedTests: number;
  };
  metadata: { git: { branch: string; environment: string; commit: { hash: string; message: string; author: string } } };
  url: string;
}

export const isoOrNull = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);

export function runSnapshotToJson(r: RunSnapshot): TestRunListItemJson {
  const s = r.testStats;
  const git = r.git;
  return {
    id: r.id,
    counter: Number(r.counter),
    status: r.status as RunStatus,
    startTime: isoOrNull(r.startTime) ?? new Date(0).toISOString(),
    endTime: isoOrNull(r.endTime),
    duration: Number(r.duration),
    testStats: {
      total: s?.total ?? 0,
      passed: s?.passed ?? 0,
      failed: s?.failed ?? 0,
      skipped: s?.skipped ?? 0,
      flaky: s?.flaky ?? 0,
      timedOut: s?.timedOut ?? 0,
      totalAttempts: s?.totalAttempts ?? 0,
      retriedTests: s?.retriedTests ?? 0,
    },
    metadata: {
      git: {
        branch: git?.branch ?? '',
        environment: git?.environment ?? '',
        commit: { hash: git?.commit?.hash ?? '', message: git?.commit?.message ?? '', author: git?.commit?.author ?? '' },
      },
    },
    url: r.url,
  };
}
