import type { ConnectRouter } from '@connectrpc/connect';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import type { ServiceContext } from '@assay/service-kit';
import { suiteHandlers } from './handlers/suites';

export function routes(router: ConnectRouter, ctx: ServiceContext): void {
  router.service(ManualTestingService, {
    ...suiteHandlers(ctx),
  });
}
