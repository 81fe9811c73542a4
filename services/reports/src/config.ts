import { loadConfig, serviceSettings, Str, Type, type Settings } from '@assay/config';

export const ReportsSettings = Type.Object({
  ...serviceSettings(7205, 9205),
  ANALYTICS_URL: Str('http://127.0.0.1:7203', 'analytics RPC (GetReportData: every figure of a report)'),
  RUNS_URL: Str('http://127.0.0.1:7202', 'runs RPC (ListRuns: the run summary table)'),
  IDENTITY_URL: Str('http://127.0.0.1:7206', 'identity RPC (project name on the cover)'),
  REPORT_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 30,
    description: 'a stored report (ready or failed) is deleted this many days after it was requested',
  }),
  REPORT_SWEEP_INTERVAL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86400,
    default: 3600,
    description: 'how often the retention sweeper deletes expired reports',
  }),
  REPORT_GENERATION_TIMEOUT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 120,
    description: 'lease of one generation attempt: a report whose worker died is taken up again after it',
  }),
  REPORT_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 20,
    default: 3,
    description: 'generation attempts of one report before it is marked failed',
  }),
  REPORT_RETRY_DELAY_SECONDS: Type.Number({
    minimum: 0,
    maximum: 3600,
    default: 10,
    description: 'wait before another attempt after a failed one (a downstream service was unavailable)',
  }),
  REPORT_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 32, default: 2, description: 'reports generated at once per process' }),
  REPORT_POLL_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 60000,
    default: 1000,
    description: 'how often an idle worker looks for pending reports (a create in the same process wakes it at once)',
  }),
});
export type ReportsConfig = Settings<typeof ReportsSettings>;

export const loadReportsConfig = (env: Record<string, string | undefined> = process.env) => loadConfig(ReportsSettings, env);
