/**
 * From a run lifecycle event (proto/assay/events/v1/run_lifecycle.proto) to the delivered JSON body of
 * CONTRACT §7: `{id, event, eventName, createdAt, projectId, data: {run: TestRunListItem}}`. The body is
 * serialized once, when the delivery rows are created, and every attempt sends those exact bytes.
 */
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { RunEventType, type RunLifecycleEvent } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { EVENT_NAMES, type EventType } from './rules';

export function eventTypeOf(e: RunLifecycleEvent): EventType | undefined {
  if (e.type === RunEventType.RUN_STARTED) return 'RUN_STARTED';
  if (e.type === RunEventType.RUN_FINISHED) return 'RUN_FINISHED';
  return undefined;
}

/** Spec §6: a finished run "failed" has 1 or more failures (failed or timed-out tests); else "passed". */
export function hasFailures(e: RunLifecycleEvent): boolean {
  const s = e.run?.testStats;
  return (s?.failed ?? 0) > 0 || (s?.timedOut ?? 0) > 0;
}

const iso = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);

export function buildPayload(e: RunLifecycleEvent, event: EventType): string {
  const run = e.run;
  const s = run?.testStats;
  const git = run?.git;
  const body = {
    id: e.eventId,
    event,
    eventName: EVENT_NAMES[event],
    createdAt: iso(e.occurredAt) ?? new Date().toISOString(),
    projectId: e.projectId,
    data: {
      run: {
        id: run?.id ?? '',
        counter: Number(run?.counter ?? 0),
        status: run?.status ?? '',
        startTime: iso(run?.startTime),
        endTime: iso(run?.endTime),
        duration: Number(run?.duration ?? 0),
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
        url: run?.url ?? '',
      },
    },
  };
  return JSON.stringify(body);
}
