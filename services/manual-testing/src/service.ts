/** The manual-testing service: suites, cases, releases, exploratory sessions, manual runs and verdicts. */
import path from 'node:path';
import { defineService } from '@assay/service-kit';
import type { ManualTestingConfig } from './config';
import { routes } from './routes';
import { wire } from './wiring';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

export function manualTestingService(config: ManualTestingConfig) {
  return defineService({ name: 'manual-testing', config, db: { schema: 'manual_testing', migrationsDir: MIGRATIONS_DIR }, wire, routes });
}
