/** Report metrics on the service's Prometheus registry (`/metrics` on HTTP_PORT). */
import { Counter, Histogram, type Registry } from 'prom-client';

export interface ReportMetrics {
  /** A generation ended: `path` async (worker) or sync (GET /reports/pdf); outcome ready, failed, retry. */
  generated(path: 'async' | 'sync', outcome: 'ready' | 'failed' | 'retry', seconds: number, bytes?: number): void;
  swept(count: number): void;
}

export function reportMetrics(registry: Registry): ReportMetrics {
  const generated = new Counter({
    name: 'reports_generated_total',
    help: 'Report generations by path (async, sync) and outcome (ready, failed, retry)',
    labelNames: ['path', 'outcome'],
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'reports_generation_seconds',
    help: 'Time to gather the data and render one PDF',
    labelNames: ['path'],
    buckets: [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60],
    registers: [registry],
  });
  const bytes = new Histogram({
    name: 'reports_pdf_bytes',
    help: 'Size of the rendered PDFs',
    buckets: [16e3, 32e3, 64e3, 128e3, 256e3, 512e3, 1e6, 4e6],
    registers: [registry],
  });
  const swept = new Counter({ name: 'reports_swept_total', help: 'Reports deleted by the retention sweeper', registers: [registry] });
  return {
    generated(path, outcome, s, size) {
      generated.inc({ path, outcome });
      if (outcome === 'ready') {
        seconds.observe({ path }, s);
        if (size !== undefined) bytes.observe(size);
      }
    },
    swept: (count) => swept.inc(count),
  };
}
