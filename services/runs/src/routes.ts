import type { ConnectRouter } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import { RunsAdminService, RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import type { Wiring } from './wiring';
import { ingestRoutes } from './ingest/routes';
import { artifactRoutes } from './artifacts/routes';
import { runAdminHandlers, testRunHandlers } from './handlers/test-runs';
import { testCaseHandlers } from './handlers/test-cases';
import { debugBundleHandlers } from './handlers/debug-bundle';
import { ruleAdminHandlers, workflowRuleHandlers } from './handlers/workflow-rules';
import { actionRuleHandlers } from './handlers/action-rules';
import { planAdminHandlers, usageHandlers } from './handlers/usage';

export function routes(router: ConnectRouter, w: Wiring): void {
  router.service(RunsService, {
    ...testRunHandlers(w),
    ...testCaseHandlers(w),
    ...debugBundleHandlers(w),
    ...workflowRuleHandlers(w),
    ...actionRuleHandlers(w),
    ...usageHandlers(w),
  });
  router.service(RunsAdminService, { ...ruleAdminHandlers(w), ...planAdminHandlers(w), ...runAdminHandlers(w) });
}

/** The internal HTTP port: ingestion bodies and artifacts stream here from the gateway, downloads stream back. */
export async function httpRoutes(app: FastifyInstance, w: Wiring): Promise<void> {
  await ingestRoutes(app, w);
  await artifactRoutes(app, w);
}
