import type { ConnectRouter } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import { RunsAdminService, RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import type { Wiring } from './wiring';
import { ingestRoutes } from './http';
import { runHandlers } from './handlers/runs';
import { bundleHandlers } from './handlers/bundle';
import { adminHandlers, ruleHandlers } from './handlers/rules';
import { usageHandlers } from './handlers/usage';

export function routes(router: ConnectRouter, w: Wiring): void {
  router.service(RunsService, { ...runHandlers(w), ...bundleHandlers(w), ...ruleHandlers(w), ...usageHandlers(w) });
  router.service(RunsAdminService, adminHandlers(w));
}

/** The internal HTTP port: ingestion bodies stream here from the gateway. */
export const httpRoutes = (app: FastifyInstance, w: Wiring) => ingestRoutes(app, w);
