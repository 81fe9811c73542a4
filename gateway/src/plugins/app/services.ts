/** Typed Connect clients for the services behind the gateway, one per service, shared by all routes. */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Client } from '@connectrpc/connect';
import { createRpcClient } from '@assay/service-kit';
import { AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { AccountService, AuthService } from '@assay/proto/assay/identity/v1/identity_pb';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { WebhooksService } from '@assay/proto/assay/webhooks/v1/webhooks_pb';
import { ReportsService } from '@assay/proto/assay/reports/v1/reports_pb';
import type { GatewayConfig } from '../../config';
import type { ServiceHttpOptions } from '../../routes/service-http';

export interface ServiceClients {
  /** The identity service's AuthService: tokens, project access, token info. */
  auth: Client<typeof AuthService>;
  /** The identity service's AccountService: sign-in, sessions, the account and its tokens (web app). */
  account: Client<typeof AccountService>;
  manualTesting: Client<typeof ManualTestingService>;
  runs: Client<typeof RunsService>;
  /** Base URL of the runs service's internal HTTP port (ingestion bodies stream there). */
  runsHttpUrl: string;
  webhooks: Client<typeof WebhooksService>;
  analytics: Client<typeof AnalyticsService>;
  reports: Client<typeof ReportsService>;
  /** Base URL of the reports service's internal HTTP port (PDF bodies stream from there). */
  reportsHttpUrl: string;
  /** How routes call a service's internal HTTP port (internal token, deadline): `routes/service-http.ts`. */
  serviceHttp: ServiceHttpOptions;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: ServiceClients;
  }
}

export function createServiceClients(config: GatewayConfig): ServiceClients {
  const opts = { internalToken: config.INTERNAL_AUTH_TOKEN, timeoutMs: config.REQUEST_TIMEOUT_MS };
  return {
    auth: createRpcClient(AuthService, { baseUrl: config.IDENTITY_URL, ...opts }),
    account: createRpcClient(AccountService, { baseUrl: config.IDENTITY_URL, ...opts }),
    manualTesting: createRpcClient(ManualTestingService, { baseUrl: config.MANUAL_TESTING_URL, ...opts }),
    runs: createRpcClient(RunsService, { baseUrl: config.RUNS_URL, ...opts }),
    runsHttpUrl: config.RUNS_HTTP_URL,
    webhooks: createRpcClient(WebhooksService, { baseUrl: config.WEBHOOKS_URL, ...opts }),
    analytics: createRpcClient(AnalyticsService, { baseUrl: config.ANALYTICS_URL, ...opts }),
    reports: createRpcClient(ReportsService, { baseUrl: config.REPORTS_URL, ...opts }),
    reportsHttpUrl: config.REPORTS_HTTP_URL,
    serviceHttp: { internalToken: config.INTERNAL_AUTH_TOKEN, timeoutMs: config.REQUEST_TIMEOUT_MS },
  };
}

export default fp(
  async function servicesPlugin(app: FastifyInstance, opts: { clients: ServiceClients }) {
    app.decorate('services', opts.clients);
  },
  { name: 'services' },
);
