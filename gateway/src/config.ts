import { loadConfig, Type, Port, Str, LogLevel, IntMap, Bool, Credential, type Settings } from '@assay/config';
import { DEFAULT_INGEST_BODY_LIMIT_BYTES } from '@assay/contracts/runs/values';

/** The rate-limit buckets of spec §8 and CONTRACT §8, requests per 60 s. */
export const DEFAULT_RATE_LIMITS = { reads: 100, writes: 60, manualRunCreate: 10, ip: 200, pdf: 1, ingest: 600 };
export type RateLimits = typeof DEFAULT_RATE_LIMITS;

export const GatewaySettings = Type.Object({
  LOG_LEVEL: LogLevel,
  PORT: Port(8080, 'public HTTP port'),
  METRICS_PORT: Port(9200, 'Prometheus /metrics'),
  BIND_HOST: Str('127.0.0.1', 'interface to listen on (0.0.0.0 in containers)'),
  REDIS_URL: Str('redis://127.0.0.1:6390'),
  INTERNAL_AUTH_TOKEN: Credential("the gateway's credential, presented on every call to a service"),
  RATE_LIMITS: IntMap(DEFAULT_RATE_LIMITS),
  IDEMPOTENCY_TTL_SECONDS: Type.Integer({ minimum: 60, default: 86400 }),
  TRUSTED_PROXY_HOPS: Type.Integer({
    minimum: 0,
    maximum: 10,
    default: 0,
    description: 'proxies in front whose X-Forwarded-For is trusted',
  }),
  PUBLIC_UI_URL: Str('http://localhost:8080', 'base of deep links'),
  PUBLIC_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  INGEST_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: DEFAULT_INGEST_BODY_LIMIT_BYTES }),
  ARTIFACT_MAX_FILE_BYTES: Type.Integer({
    minimum: 1024,
    default: 1024 * 1024 * 1024,
    description: 'largest artifact upload streamed on to the runs service (413 above; runs enforces its own too)',
  }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    default: 30000,
    description:
      'time to receive a whole request (408 after it), and the deadline of each service call; artifact uploads: see ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS',
  }),
  ARTIFACT_UPLOAD_IDLE_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    default: 60000,
    description:
      'an artifact upload ends after this long without progress (408 when no byte arrived); it has no total time limit (REQUEST_TIMEOUT_MS does not apply)',
  }),
  MAX_HEADER_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 1024 * 1024,
    default: 16384,
    description: 'largest request line plus headers (431 above)',
  }),
  AUTH_CACHE_TTL_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 60,
    default: 5,
    description: 'how long a resolved token and role may be reused (a revocation or role change ends it at once)',
  }),
  IDENTITY_URL: Str('http://127.0.0.1:7206', 'identity RPC: authenticates every request'),
  MANUAL_TESTING_URL: Str('http://127.0.0.1:7201'),
  RUNS_URL: Str('http://127.0.0.1:7202'),
  RUNS_HTTP_URL: Str('http://127.0.0.1:9202'),
  ANALYTICS_URL: Str('http://127.0.0.1:7203'),
  WEBHOOKS_URL: Str('http://127.0.0.1:7204'),
  REPORTS_URL: Str('http://127.0.0.1:7205'),
  REPORTS_HTTP_URL: Str('http://127.0.0.1:9205'),
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, default: 10000 }),
  DOCS_ENABLED: Bool(true, 'serve the API reference page at /docs'),
  WEB_ROOT: Type.String({
    default: '',
    description: "the web app's built files (index.html, routes.json, assets/); empty: web/dist of this installation",
  }),
});
export type GatewayConfig = Settings<typeof GatewaySettings>;

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return loadConfig(GatewaySettings, env);
}
