/** Prometheus metrics: process defaults plus one counter and one histogram for every RPC handled. */
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  rpcInterceptor: Interceptor;
}

export function createMetrics(serviceName: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: serviceName });
  collectDefaultMetrics({ register: registry });
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
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
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
