import type { ConnectRouter } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import { ReportsService } from '@assay/proto/assay/reports/v1/reports_pb';
import type { Wiring } from './wiring';
import { reportHandlers } from './handlers/reports';
import { reportRoutes } from './http';

export function routes(router: ConnectRouter, w: Wiring): void {
  router.service(ReportsService, reportHandlers(w));
}

/** The internal HTTP port: PDF bodies stream from here through the gateway. */
export const httpRoutes = (app: FastifyInstance, w: Wiring) => reportRoutes(app, w);
