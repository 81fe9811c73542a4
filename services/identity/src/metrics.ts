/** Identity metrics on the service's Prometheus registry (`/metrics` on HTTP_PORT). */
import { Counter, type Registry } from 'prom-client';

export interface IdentityMetrics {
  swept(count: number): void;
}

export function identityMetrics(registry: Registry): IdentityMetrics {
  const swept = new Counter({
    name: 'identity_sessions_swept_total',
    help: 'Ended web app sessions, and used or expired invitations and sign-in links, deleted by the retention sweeper',
    registers: [registry],
  });
  return { swept: (count) => swept.inc(count) };
}
