import { Bool, loadConfig, serviceSettings, Str, Type, type Settings } from '@assay/config';

/** `60,300,1800,7200` → seconds; fractions are allowed so tests can run the whole schedule in milliseconds. */
const RetryDelays = (defaultValue: string) =>
  Type.Transform(Type.String({ default: defaultValue, description: 'waits before attempts 2..n, seconds' }))
    .Decode((s) => {
      const parts = s.split(',').map((p) => p.trim());
      const delays = parts.map((p) => {
        const n = Number(p);
        if (p === '' || !Number.isFinite(n) || n < 0) throw new Error(`"${p}" is not a non-negative number of seconds`);
        return n;
      });
      if (delays.length < 1 || delays.length > 20) throw new Error('give between 1 and 20 delays');
      return delays;
    })
    .Encode((a) => a.join(','));

export const WebhooksSettings = Type.Object({
  ...serviceSettings(7204, 9204),
  WEBHOOK_RETRY_DELAYS_SECONDS: RetryDelays('60,300,1800,7200'),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120000, default: 10000, description: 'per delivery attempt' }),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: Bool(false, 'allow loopback, private and link-local targets (SSRF guard off)'),
  SECRETS_KEY: Type.String({ minLength: 32, description: 'key material that encrypts signing secrets at rest (HKDF → AES-256-GCM)' }),
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 1000, default: 32, description: 'deliveries in flight per process' }),
  WEBHOOK_POLL_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 60000, default: 250, description: 'dispatcher poll when idle' }),
  WEBHOOK_CONSUMER_GROUP: Str('webhooks', 'Kafka consumer group of the run-lifecycle consumer'),
  // Fractions are allowed so that the end-to-end tests can see a sweep in seconds.
  WEBHOOK_DELIVERY_RETENTION_DAYS: Type.Number({
    exclusiveMinimum: 0,
    maximum: 3650,
    default: 30,
    description: 'a finished delivery (and its attempts) is deleted this many days after its event; pending ones are kept',
  }),
  WEBHOOK_DELIVERY_SWEEP_INTERVAL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86400,
    default: 3600,
    description: 'how often the retention sweeper deletes expired deliveries',
  }),
});
export type WebhooksConfig = Settings<typeof WebhooksSettings>;

export const loadWebhooksConfig = (env = process.env) => loadConfig(WebhooksSettings, env);
