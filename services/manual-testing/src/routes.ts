import type { ConnectRouter } from '@connectrpc/connect';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import type { Wiring } from './wiring';
import { suiteHandlers } from './handlers/suites';
import { caseHandlers } from './handlers/cases';
import { releaseHandlers } from './handlers/releases';
import { sessionHandlers } from './handlers/sessions';
import { runHandlers } from './handlers/runs';

export function routes(router: ConnectRouter, w: Wiring): void {
  router.service(ManualTestingService, {
    ...suiteHandlers(w),
    ...caseHandlers(w),
    ...releaseHandlers(w),
    ...sessionHandlers(w),
    ...runHandlers(w),
  });
}
