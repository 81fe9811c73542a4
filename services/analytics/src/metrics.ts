/** Read-model metrics on the service's Prometheus registry (`/metrics` on HTTP_PORT). */
import { Counter, Histogram, type Registry } from 'prom-client';

export function analyticsMetrics(registry: Registry) {
  const runs = new Counter({
    name: 'analytics_folded_runs_total',
    help: 'Finished runs folded into the read model',
    registers: [registry],
  });
  const results = new Counter({
    name: 'analytics_folded_results_total',
    help: 'Test results folded into the read model',
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'analytics_fold_seconds',
    help: 'Time to fold one finished run (results pulled from the runs service, rollups and windows written)',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const events = new Counter({
    name: 'analytics_run_events_total',
    help: 'Run lifecycle events handled, by type (started, finished) and outcome (recorded, folded, skipped = already folded or unknown)',
    labelNames: ['type', 'outcome'],
    registers: [registry],
  });
  return {
    event(type: 'started' | 'finished', outcome: 'recorded' | 'folded' | 'skipped') {
      events.inc({ type, outcome });
    },
    folded(runCount: number, resultCount: number, ms: number) {
      runs.inc(runCount);
      results.inc(resultCount);
      seconds.observe(ms / 1000);
    },
  };
}
export type AnalyticsMetrics = ReturnType<typeof analyticsMetrics>;
