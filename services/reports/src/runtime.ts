/** What the handlers, the HTTP endpoints and the workers of one process share. */
import type { Pool } from '@assay/db';
import type { Logger } from '@assay/logger';
import type { ReportsConfig } from './config';
import type { Sources } from './domain/collect';
import type { ReportMetrics } from './metrics';

export interface Runtime {
  config: ReportsConfig;
  pool: Pool;
  logger: Logger;
  sources: Sources;
  metrics: ReportMetrics;
  now(): Date;
  /** Wakes this process's generator (a report was just requested). */
  wake(): void;
}
