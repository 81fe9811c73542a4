import type { ConnectRouter } from '@connectrpc/connect';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import type { ServiceContext } from '@assay/service-kit';
import type { ManualTestingConfig } from './config';
import { identityMembers } from './identity';
import { suiteHandlers } from './handlers/suites';
import { caseHandlers } from './handlers/cases';
import { releaseHandlers } from './handlers/releases';
import { sessionHandlers } from './handlers/sessions';
import { runHandlers } from './handlers/runs';

export function routes(router: ConnectRouter, ctx: ServiceContext<ManualTestingConfig>): void {
  const m = identityMembers({ baseUrl: ctx.config.IDENTITY_URL, internalToken: ctx.config.INTERNAL_AUTH_TOKEN });
  router.service(ManualTestingService, {
    ...suiteHandlers(ctx),
    ...caseHandlers(ctx),
    ...releaseHandlers(ctx, m),
    ...sessionHandlers(ctx, m),
    ...runHandlers(ctx, m),
  });
}
