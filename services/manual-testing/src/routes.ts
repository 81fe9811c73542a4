import type { ConnectRouter } from '@connectrpc/connect';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import type { Wiring } from './wiring';
import { manualTestSuiteHandlers } from './handlers/manual-test-suites';
import { manualTestCaseHandlers } from './handlers/manual-test-cases';
import { releaseHandlers } from './handlers/releases';
import { sessionHandlers } from './handlers/sessions';
import { manualRunHandlers } from './handlers/manual-runs';

export function routes(router: ConnectRouter, w: Wiring): void {
  router.service(ManualTestingService, {
    ...manualTestSuiteHandlers(w),
    ...manualTestCaseHandlers(w),
    ...releaseHandlers(w),
    ...sessionHandlers(w),
    ...manualRunHandlers(w),
  });
}
