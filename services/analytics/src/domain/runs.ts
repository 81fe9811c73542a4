/**
 * A run's status as the read model keeps it (the `runs` table: passed, failed, interrupted, incomplete, running):
 * the one place that reads RunSnapshot.status, so a change of its wire form is one change here.
 */
import type { RunSnapshot } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { runStatus } from '@assay/contracts/runs/test-runs';

export const runStatusOf = (run: RunSnapshot): string => runStatus.fromProto(run.status);

export const isRunning = (run: RunSnapshot): boolean => runStatusOf(run) === 'running';
