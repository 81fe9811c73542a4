/**
 * Health as Kubernetes sees it: `grpc.health.v1.Health` answers NOT_SERVING while any dependency check
 * (database, broker) fails or while the process drains for shutdown, and SERVING again once they pass.
 */
import { EventEmitter } from 'node:events';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type ConnectRouter } from '@connectrpc/connect';
import {
  Health,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus as ServingStatus,
  type HealthCheckResponse,
} from '@assay/proto/grpc/health/v1/health_pb';
import type { Logger } from '@assay/logger';

export interface HealthCheck {
  name: string;
  check: () => Promise<boolean>;
}

export class HealthMonitor {
  private serving = false;
  private draining = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly events = new EventEmitter();
  readonly results: Record<string, boolean> = {};

  constructor(
    private readonly checks: HealthCheck[],
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.events.setMaxListeners(0);
  }

  async start(): Promise<void> {
    await this.runChecks();
    const tick = () => {
      this.timer = setTimeout(() => void this.runChecks().finally(() => this.timer && tick()), this.intervalMs);
      this.timer.unref();
    };
    tick();
  }

  stop(): void {
    const t = this.timer;
    this.timer = undefined;
    clearTimeout(t);
  }

  isServing(): boolean {
    return this.serving && !this.draining;
  }

  /** From now on the process reports NOT_SERVING so traffic moves elsewhere before it stops. */
  setDraining(): void {
    this.draining = true;
    this.emitChange();
  }

  onChange(listener: (serving: boolean) => void): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  private async runChecks(): Promise<void> {
    const outcomes = await Promise.all(this.checks.map(async (c) => [c.name, await c.check().catch(() => false)] as const));
    for (const [name, ok] of outcomes) {
      if (this.results[name] !== ok)
        this.logger[ok ? 'info' : 'warn']({ dependency: name, ok }, ok ? 'dependency reachable' : 'dependency unreachable');
      this.results[name] = ok;
    }
    const serving = outcomes.every(([, ok]) => ok);
    if (serving !== this.serving) {
      this.serving = serving;
      this.emitChange();
    }
  }

  private emitChange(): void {
    this.events.emit('change', this.isServing());
  }
}

/**
 * The name a liveness probe asks about: SERVING whenever the process answers at all, whatever its
 * dependencies. A database or broker outage must take pods out of rotation (readiness, ""), not restart
 * them all (liveness) and have every one re-run its start-up against the failing dependency.
 */
export const LIVENESS_SERVICE = 'liveness';

function statusOf(monitor: HealthMonitor, service: string): HealthCheckResponse {
  const serving = service === LIVENESS_SERVICE || monitor.isServing();
  return create(HealthCheckResponseSchema, { status: serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING });
}

/**
 * Registers grpc.health.v1.Health; `serviceNames` are the names a probe may ask about besides "" (readiness:
 * dependencies and draining) and `liveness` (see LIVENESS_SERVICE).
 */
export function registerHealth(router: ConnectRouter, monitor: HealthMonitor, serviceNames: string[]): void {
  const known = new Set(['', LIVENESS_SERVICE, ...serviceNames]);
  router.service(Health, {
    check(req) {
      if (!known.has(req.service)) throw new ConnectError(`unknown service ${req.service}`, Code.NotFound);
      return statusOf(monitor, req.service);
    },
    list() {
      return { statuses: Object.fromEntries([...known].map((n) => [n, statusOf(monitor, n)])) };
    },
    async *watch(req, ctx) {
      if (!known.has(req.service)) {
        yield create(HealthCheckResponseSchema, { status: ServingStatus.SERVICE_UNKNOWN });
        return;
      }
      yield statusOf(monitor, req.service);
      while (!ctx.signal.aborted) {
        const changed = await new Promise<boolean>((resolve) => {
          const onAbort = () => {
            off();
            resolve(false);
          };
          const off = monitor.onChange(() => {
            off();
            ctx.signal.removeEventListener('abort', onAbort);
            resolve(true);
          });
          ctx.signal.addEventListener('abort', onAbort, { once: true });
        });
        if (!changed) return;
        yield statusOf(monitor, req.service);
      }
    },
  });
}
