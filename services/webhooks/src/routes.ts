import type { ConnectRouter } from '@connectrpc/connect';
import { WebhooksService } from '@assay/proto/assay/webhooks/v1/webhooks_pb';
import type { Wiring } from './wiring';
import { webhookHandlers } from './handlers/webhooks';

export function routes(router: ConnectRouter, w: Wiring): void {
  router.service(WebhooksService, webhookHandlers(w));
}
