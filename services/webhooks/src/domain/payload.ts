/**
 * From a run lifecycle event (proto/assay/events/v1/run_lifecycle.proto) to the delivered JSON body of
 * CONTRACT §7: `{id, event, eventName, createdAt, projectId, data: {run: TestRunListItem}}` (WebhookPayloadSchema of
 * the contract, which the API document's `webhooks` section shows too). The body is
 * serialized once, when the delivery rows are created, and every attempt sends those exact bytes.
 */
import { RunEventType, type RunLifecycleEvent } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { iso } from '@assay/contracts/common/json';
import { runSnapshotToJson } from '@assay/contracts/runs/test-runs';
import { WEBHOOK_EVENT_NAMES, type WebhookEventName } from '@assay/contracts/webhooks/values';
import type { WebhookPayload } from '@assay/contracts/webhooks/webhooks';

export function eventTypeOf(e: RunLifecycleEvent): WebhookEventName | undefined {
  if (e.type === RunEventType.RUN_STARTED) return 'RUN_STARTED';
  if (e.type === RunEventType.RUN_FINISHED) return 'RUN_FINISHED';
  return undefined;
}

/** Spec §6: a finished run "failed" has 1 or more failures (failed or timed-out tests); else "passed". */
export function hasFailures(e: RunLifecycleEvent): boolean {
  const s = e.run?.testStats;
  return (s?.failed ?? 0) > 0 || (s?.timedOut ?? 0) > 0;
}

export function buildPayload(e: RunLifecycleEvent, event: WebhookEventName): string {
  const body: WebhookPayload = {
    id: e.eventId,
    event,
    eventName: WEBHOOK_EVENT_NAMES[event],
    createdAt: iso(e.occurredAt) ?? new Date().toISOString(),
    projectId: e.projectId,
    data: { run: e.run ? runSnapshotToJson(e.run) : null },
  };
  return JSON.stringify(body);
}
