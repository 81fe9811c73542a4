import type { ConnectRouter } from '@connectrpc/connect';
import { AccountService, AdminService, AuthService, IdentityService } from '@assay/proto/assay/identity/v1/identity_pb';
import type { Wiring } from './wiring';
import { accountHandlers } from './handlers/accounts';
import { adminHandlers } from './handlers/admin';
import { authHandlers } from './handlers/auth';
import { identityHandlers } from './handlers/identity';

export function routes(router: ConnectRouter, w: Wiring): void {
  router.service(AdminService, adminHandlers(w));
  router.service(AuthService, authHandlers(w));
  router.service(AccountService, accountHandlers(w));
  router.service(IdentityService, identityHandlers(w));
}
