import { Bool, loadConfig, serviceSettings, Str, Type, type Settings } from '@assay/config';

export const AnalyticsSettings = Type.Object({
  ...serviceSettings(7203, 9203),
  RUNS_URL: Str('http://127.0.0.1:7202', 'runs RPC (results of finished runs, rebuilds)'),
  ANALYTICS_CONSUMER_GROUP: Str('analytics', 'Kafka consumer group of the run-lifecycle consumer'),
  ANALYTICS_SLOW_TEST_MIN_MS: Type.Integer({
    minimum: 0,
    default: 1000,
    description: 'a test is slow when its p95 is at least this many ms and at least ANALYTICS_SLOW_TEST_FACTOR × the project p50',
  }),
  ANALYTICS_SLOW_TEST_FACTOR: Type.Number({ minimum: 0, maximum: 1000, default: 2, description: 'see ANALYTICS_SLOW_TEST_MIN_MS' }),
  ANALYTICS_REBUILD_ON_EMPTY: Bool(true, 'rebuild from the runs service when the read model is empty at start'),
  ANALYTICS_REBUILD_BATCH_RESULTS: Type.Integer({
    minimum: 100,
    maximum: 1000000,
    default: 50000,
    description: 'results folded per transaction by a rebuild',
  }),
  ANALYTICS_READ_CACHE_ENTRIES: Type.Integer({
    minimum: 0,
    maximum: 100000,
    default: 100,
    description: 'answers of the window endpoints cached per read-model version (0 = no cache)',
  }),
  ANALYTICS_ROLL_INTERVAL_MS: Type.Integer({
    minimum: 100,
    maximum: 3600000,
    default: 60000,
    description: 'how often the rolling windows of idle projects are moved to the new day',
  }),
});
export type AnalyticsConfig = Settings<typeof AnalyticsSettings>;

export const loadAnalyticsConfig = (env: Record<string, string | undefined> = process.env) => loadConfig(AnalyticsSettings, env);
