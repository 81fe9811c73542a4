/**
 * What the handlers, the ingestion routes and the workers of the runs service share: the pool, deep links, the
 * default plan, the clock, the manual-testing client and the Kafka bus (the outbox relay publishes through it),
 * plus two signals: a commit wrote outbox rows, or queued links to manual cases (they wake the workers).
 * Tests pass another clock or an in-memory manual-testing client through `overrides`.
 */
import type { Client } from '@connectrpc/connect';
import type { Pool } from '@assay/db';
import { createKafkaBus, type EventBus } from '@assay/events';
import type { Logger } from '@assay/logger';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { createRpcClient, systemClock, type Clock, type ServiceContext } from '@assay/service-kit';
import type { RunsConfig } from './config';
import { Links } from './domain/snapshot';
import type { Plan } from './store/usage';

export interface Wiring {
  pool: Pool;
  config: RunsConfig;
  logger: Logger;
  links: Links;
  defaultPlan: Plan;
  clock: Clock;
  /** Not a readiness dependency: ingestion goes on while the broker is down (events wait in the outbox). */
  bus: EventBus;
  manualTesting: Client<typeof ManualTestingService>;
  /** Called after a commit that wrote outbox rows / pending manual links: wakes the workers. */
  eventsWritten(): void;
  linksQueued(): void;
  onEvents(f: () => void): void;
  onLinks(f: () => void): void;
}

export interface Overrides {
  clock?: Clock;
  manualTesting?: Client<typeof ManualTestingService>;
}

export function wire(ctx: ServiceContext<RunsConfig>, overrides: Overrides = {}): Wiring {
  const { config } = ctx;
  const listeners = { events: [] as (() => void)[], links: [] as (() => void)[] };
  return {
    pool: ctx.pool,
    config,
    logger: ctx.logger,
    links: new Links(config.PUBLIC_UI_URL),
    defaultPlan: { planName: config.DEFAULT_PLAN_NAME, testResultsPerMonth: config.DEFAULT_TEST_RESULTS_PER_MONTH },
    clock: overrides.clock ?? systemClock,
    bus: createKafkaBus({ brokers: config.KAFKA_BROKERS, clientId: 'runs-outbox', logger: ctx.logger }),
    manualTesting:
      overrides.manualTesting ??
      createRpcClient(ManualTestingService, { baseUrl: config.MANUAL_TESTING_URL, internalToken: config.INTERNAL_AUTH_TOKEN }),
    eventsWritten: () => listeners.events.forEach((f) => f()),
    linksQueued: () => listeners.links.forEach((f) => f()),
    onEvents: (f) => listeners.events.push(f),
    onLinks: (f) => listeners.links.push(f),
  };
}
