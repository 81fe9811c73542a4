import { loadConfig, serviceSettings, Str, Type, type Settings } from '@assay/config';
import { DEFAULT_INGEST_BODY_LIMIT_BYTES } from '@assay/contracts/runs/values';

export const RunsSettings = Type.Object({
  ...serviceSettings(7202, 9202),
  MANUAL_TESTING_URL: Str('http://127.0.0.1:7201', 'manual-testing RPC (links to manual cases)'),
  PUBLIC_UI_URL: Str('http://localhost:8080', 'base of deep links (url fields)'),
  RUN_INACTIVITY_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    default: 3600,
    description: 'a running run with no ingestion activity for this long is swept to incomplete',
  }),
  INGEST_BODY_LIMIT_BYTES: Type.Integer({
    minimum: 1024,
    default: DEFAULT_INGEST_BODY_LIMIT_BYTES,
    description: 'largest report accepted',
  }),
  INGEST_SPOOL_DIR: Type.String({
    default: '',
    description: 'where bodies over 1 MiB wait while they are parsed (empty: the system temp folder)',
  }),
  INGEST_MAX_LARGE_UPLOADS: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 4,
    description: 'bodies over 1 MiB spooled and parsed at once per process (one more: 503 with Retry-After)',
  }),
  DEFAULT_PLAN_NAME: Str('standard', 'plan of an organization without one set by plan:set'),
  DEFAULT_TEST_RESULTS_PER_MONTH: Type.Integer({ minimum: 0, default: 1000000, description: 'quota of that default plan' }),
  OUTBOX_POLL_INTERVAL_MS: Type.Integer({ minimum: 10, default: 250, description: 'how often the relay looks for unpublished events' }),
});
export type RunsConfig = Settings<typeof RunsSettings>;

export const loadRunsConfig = (env: Record<string, string | undefined> = process.env) => loadConfig(RunsSettings, env);
