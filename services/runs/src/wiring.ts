/**
 * What the handlers, the ingestion routes and the workers of the runs service share: the pool, deep links, the
 * default plan, the clock, the manual-testing client and the Kafka bus (the outbox relay publishes through it),
 * plus two signals: a commit wrote outbox rows, or queued links to manual cases (they wake the workers).
 * Tests pass another clock or an in-memory manual-testing client through `overrides`.
 */
import type { Client } from '@connectrpc/connect';
import { companionPool, type Pool } from '@assay/db';
import { createKafkaBus, type EventBus } from '@assay/events';
import type { Logger } from '@assay/logger';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { createRpcClient, systemClock, type Clock, type ServiceContext } from '@assay/service-kit';
import { createObjectStore, type ObjectStore } from '@assay/storage';
import type { RunsConfig } from './config';
import { Artifacts } from './artifacts/artifacts';
import { Links } from './domain/snapshot';
import type { Plan } from './store/usage';

export interface Wiring {
  pool: Pool;
  /**
   * Rows the project shares (test identities, error groups), each batch's committed on its own while an ingestion's
   * transaction holds a connection of `pool`.
   */
  sharedRows: Pool;
  config: RunsConfig;
  logger: Logger;
  links: Links;
  defaultPlan: Plan;
  clock: Clock;
  /** Not a readiness dependency: ingestion goes on while the broker is down (events wait in the outbox). */
  bus: EventBus;
  manualTesting: Client<typeof ManualTestingService>;
  /** Stored attachments: object storage plus their rows and signed URLs. */
  artifacts: Artifacts;
  /** Called after a commit that wrote outbox rows / pending manual links: wakes the workers. */
  eventsWritten(): void;
  linksQueued(): void;
  onEvents(f: () => void): void;
  onLinks(f: () => void): void;
}

export interface Overrides {
  clock?: Clock;
  store?: ObjectStore;
  manualTesting?: Client<typeof ManualTestingService>;
}

export function wire(ctx: ServiceContext<RunsConfig>, overrides: Overrides = {}): Wiring {
  const { config } = ctx;
  const listeners = { events: [] as (() => void)[], links: [] as (() => void)[] };
  const w: Omit<Wiring, 'artifacts'> = {
    pool: ctx.pool,
    sharedRows: companionPool(ctx.pool, 2, ctx.logger),
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
  const store = overrides.store ?? createObjectStore(storageSettings(config));
  return Object.assign(w, { artifacts: new Artifacts(w as Wiring, store) });
}

export function storageSettings(config: RunsConfig) {
  return config.ARTIFACT_STORAGE === 's3'
    ? {
        kind: 's3' as const,
        endpoint: config.S3_ENDPOINT,
        bucket: config.S3_BUCKET,
        region: config.S3_REGION,
        accessKeyId: config.S3_ACCESS_KEY_ID,
        secretAccessKey: config.S3_SECRET_ACCESS_KEY,
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
      }
    : { kind: 'filesystem' as const, dir: config.ARTIFACT_DIR };
}
