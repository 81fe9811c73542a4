/** Webhook metrics on the service's Prometheus registry (`/metrics` on HTTP_PORT). */
import { Counter, Histogram, type Registry } from 'prom-client';

export interface WebhookMetrics {
  attempt(ok: boolean, statusCode: number | null, responseMs: number | null): void;
  disabled(): void;
  created(count: number): void;
  swept(count: number): void;
}

export function webhookMetrics(registry: Registry): WebhookMetrics {
  const attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Delivery attempts by outcome and HTTP status class (2xx, 3xx, 4xx, 5xx, none)',
    labelNames: ['outcome', 'status_class'],
    registers: [registry],
  });
  const responseSeconds = new Histogram({
    name: 'webhook_delivery_response_seconds',
    help: 'Time from sending a delivery to the receiver’s response headers',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const disabled = new Counter({
    name: 'webhook_subscriptions_disabled_total',
    help: 'Subscriptions disabled after consecutive failed attempts',
    registers: [registry],
  });
  const created = new Counter({
    name: 'webhook_deliveries_created_total',
    help: 'Delivery rows created from run lifecycle events',
    registers: [registry],
  });
  const swept = new Counter({
    name: 'webhook_deliveries_swept_total',
    help: 'Finished deliveries deleted by the retention sweeper',
    registers: [registry],
  });
  return {
    attempt(ok, statusCode, responseMs) {
      attempts.inc({
        outcome: ok ? 'success' : 'failed',
        status_class: statusCode === null ? 'none' : `${Math.floor(statusCode / 100)}xx`,
      });
      if (responseMs !== null) responseSeconds.observe(responseMs / 1000);
    },
    disabled: () => disabled.inc(),
    created: (count) => created.inc(count),
    swept: (count) => swept.inc(count),
  };
}
