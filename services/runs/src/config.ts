import { Bool, loadConfig, serviceSettings, Str, Type, type Settings } from '@assay/config';
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
  ARTIFACT_STORAGE: Type.Union([Type.Literal('filesystem'), Type.Literal('s3')], {
    default: 'filesystem',
    description: 'where artifact bytes live: a local folder (one machine) or an S3-compatible bucket (a cluster)',
  }),
  ARTIFACT_DIR: Str('/var/lib/assay/artifacts', 'the folder of the filesystem storage'),
  S3_ENDPOINT: Type.String({ default: '', description: 'S3-compatible endpoint URL (empty: AWS S3 of S3_REGION)' }),
  S3_BUCKET: Str('assay-artifacts', 'bucket of the S3 storage (it must exist)'),
  S3_REGION: Str('us-east-1', 'region of the S3 storage'),
  S3_ACCESS_KEY_ID: Type.String({ default: '', description: 'S3 access key (empty: the SDK default chain, e.g. an IAM role)' }),
  S3_SECRET_ACCESS_KEY: Type.String({ default: '', description: 'S3 secret key' }),
  S3_FORCE_PATH_STYLE: Bool(true, 'bucket in the path (most S3-compatible servers) rather than in the host name'),
  S3_CREATE_BUCKET: Bool(false, 'create the bucket at start when it is missing (the chart sets it for its dev S3 server)'),
  ARTIFACT_MAX_FILE_BYTES: Type.Integer({ minimum: 1024, default: 1024 * 1024 * 1024, description: 'largest artifact (413 above)' }),
  ARTIFACT_MAX_RUN_BYTES: Type.Integer({
    minimum: 1024,
    default: 10 * 1024 * 1024 * 1024,
    description: "largest total of one run's artifacts (413 above)",
  }),
  ARTIFACT_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 30,
    description: 'how long artifacts are kept, for projects without their own retention (admin CLI)',
  }),
  ARTIFACT_URL_TTL_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 7 * 86400,
    default: 3600,
    description: 'lifetime of the signed download URLs the reads list',
  }),
  ARTIFACT_SWEEP_INTERVAL_MS: Type.Integer({ minimum: 100, default: 60000, description: 'how often expired artifacts are deleted' }),
  DEFAULT_PLAN_NAME: Str('standard', 'plan of an organization without one set by plan:set'),
  DEFAULT_TEST_RESULTS_PER_MONTH: Type.Integer({ minimum: 0, default: 1000000, description: 'quota of that default plan' }),
  OUTBOX_POLL_INTERVAL_MS: Type.Integer({ minimum: 10, default: 250, description: 'how often the relay looks for unpublished events' }),
});
export type RunsConfig = Settings<typeof RunsSettings>;

export const loadRunsConfig = (env: Record<string, string | undefined> = process.env) => loadConfig(RunsSettings, env);
