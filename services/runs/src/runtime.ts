/** What the handlers, HTTP routes and workers of the runs service share. */
import type { Pool } from '@assay/db';
import type { Logger } from '@assay/logger';
import type { RunsConfig } from './config';
import { Links } from './domain/snapshot';
import type { Plan } from './store/usage';

export interface Runtime {
  pool: Pool;
  config: RunsConfig;
  logger: Logger;
  links: Links;
  defaultPlan: Plan;
  now(): Date;
  /** Called after a commit that wrote outbox rows / pending manual links: wakes the workers. */
  eventsWritten(): void;
  linksQueued(): void;
}

export function createRuntime(opts: { pool: Pool; config: RunsConfig; logger: Logger; now?: () => Date }): WiredRuntime {
  const listeners = { events: [] as (() => void)[], links: [] as (() => void)[] };
  const rt: WiredRuntime = {
    pool: opts.pool,
    config: opts.config,
    logger: opts.logger,
    links: new Links(opts.config.PUBLIC_UI_URL),
    defaultPlan: { planName: opts.config.DEFAULT_PLAN_NAME, testResultsPerMonth: opts.config.DEFAULT_TEST_RESULTS_PER_MONTH },
    now: opts.now ?? (() => new Date()),
    eventsWritten: () => listeners.events.forEach((f) => f()),
    linksQueued: () => listeners.links.forEach((f) => f()),
    onEvents: (f) => listeners.events.push(f),
    onLinks: (f) => listeners.links.push(f),
  };
  return rt;
}

export type WiredRuntime = Runtime & { onEvents(f: () => void): void; onLinks(f: () => void): void };
