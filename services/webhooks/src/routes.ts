import type { ConnectRouter } from '@connectrpc/connect';
import { WebhooksService } from '@assay/proto/assay/webhooks/v1/webhooks_pb';
import type { ServiceContext } from '@assay/service-kit';
import type { WebhooksConfig } from './config';
import type { SecretBox } from './domain/secrets';
import { subscriptionHandlers } from './handlers/subscriptions';

export function routes(secrets: SecretBox) {
  return (router: ConnectRouter, ctx: ServiceContext<WebhooksConfig>): void => {
    router.service(WebhooksService, subscriptionHandlers(ctx, secrets));
  };
}
