/**
 * Prometheus metrics: process defaults plus one counter and one histogram for every RPC handled, and the
 * same pair for HTTP requests of a Fastify server (`httpMetrics`); the rotations of internal calls (`observeReplicas`).
 */
import diagnostics from 'node:diagnostics_channel';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '@assay/logger';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { REPLICA_CHANNEL, type ReplicaChange } from './replicas';

const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface Metrics {
  registry: Registry;
  rpcInterceptor: Interceptor;
}

export function createMetrics(serviceName: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: serviceName });
  // The event-loop lag histogram samples every 100 ms rather than prom-client's 10: every process woke 100 times a
  // second for it alone while idle (strace of an idle gateway), and any stall still delays the next sample.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const calls = new Counter({
    name: 'rpc_server_handled_total',
    help: 'RPCs completed, by method and code',
    labelNames: ['method', 'code'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'rpc_server_handling_seconds',
    help: 'RPC handling time',
    labelNames: ['method'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rpcInterceptor: Interceptor = (next) => async (req) => {
    const method = `${req.service.typeName}/${req.method.name}`;
    const end = duration.startTimer({ method });
    try {
      const res = await next(req);
      calls.inc({ method, code: 'ok' });
      return res;
    } catch (err) {
      calls.inc({ method, code: Code[ConnectError.from(err).code] ?? 'unknown' });
      throw err;
    } finally {
      end();
    }
  };
  return { registry, rpcInterceptor };
}

/** The route label of a request that matched no route: one series, whatever path a scanner tries. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Counts every request a Fastify server answers and times it, by route template (`/api/v1/public/:projectId/
 * test-runs`, never the raw URL, so the series stay bounded), method and status. Registered on the root
 * instance before any route, it sees every answer, errors and 404s included.
 */
export function httpMetrics(app: FastifyInstance, registry: Registry): void {
  const labelNames = ['route', 'method', 'status'] as const;
  const requests = new Counter({
    name: 'http_server_requests_total',
    help: 'HTTP requests answered, by route template, method and status',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'HTTP request time from the first byte received to the last byte sent, by route template, method and status',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      route: request.routeOptions.url ?? UNMATCHED_ROUTE,
      method: request.method,
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });
}

/**
 * Logs and counts the changes of this process's rotations of service replicas (replicas.ts): an address that leaves
 * one because its connection failed is a warning (calls go to the others meanwhile), the rest is information.
 * Counted in `rpc_client_replica_changes_total` by target (host:port of the service's URL) and change. Returns the
 * unsubscription.
 */
export function observeReplicas(logger: Logger, registry: Registry): () => void {
  const counted = new Counter({
    name: 'rpc_client_replica_changes_total',
    help: 'Changes of the replicas internal calls are dealt over, by target service address and change (added, removed, down, up)',
    labelNames: ['target', 'change'],
    registers: [registry],
  });
  const onChange = (message: unknown) => {
    const c = message as ReplicaChange;
    counted.inc({ target: c.target, change: c.change });
    const fields = { target: c.target, address: c.address, change: c.change, live: c.live, members: c.members };
    if (c.change === 'down') logger.warn({ ...fields, error: c.error }, 'service replica left the rotation: its connection failed');
    else logger.info(fields, `service replica ${c.change === 'up' ? 'back in the rotation' : c.change}`);
  };
  diagnostics.subscribe(REPLICA_CHANNEL, onChange);
  return () => diagnostics.unsubscribe(REPLICA_CHANNEL, onChange);
}
