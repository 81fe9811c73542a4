/**
 * The reports handler and worker tests' setting: the service wired on a schema of its own, a clock the test
 * moves, and in-memory analytics, runs and identity services (the report's sources) whose answers a test may
 * change (e.g. make analytics fail).
 */
import { Code, ConnectError, type ServiceImpl } from '@connectrpc/connect';
import { AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { IdentityService } from '@assay/proto/assay/identity/v1/identity_pb';
import { ReportsService } from '@assay/proto/assay/reports/v1/reports_pb';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { fromConnectError } from '@assay/errors';
import { decodePrincipal, formatCallers, PRINCIPAL_HEADER, type Principal } from '@assay/service-kit';
import { inMemoryClient, testContext, testSchema, type TestSchema } from '@assay/testkit';
import { loadReportsConfig } from '../../src/config';
import { routes } from '../../src/routes';
import { MIGRATIONS_DIR } from '../../src/service';
import { wire, type Wiring } from '../../src/wiring';

export const PROJECT = 'p'.repeat(24);
export const START = new Date('2026-03-10T12:00:00.000Z');

export interface ReportsUnit {
  db: TestSchema;
  w: Wiring;
  client: ReturnType<typeof inMemoryClient<typeof ReportsService>>;
  /** Moves the clock. */
  setNow(d: Date): void;
  /** How analytics answers GetReportData (replace to make it fail). */
  analytics: Pick<ServiceImpl<typeof AnalyticsService>, 'getReportData'>;
  /** Wake-ups of the generator requested so far. */
  wakes: number;
  /** The principals the sources were called with. */
  callers: (Principal | undefined)[];
}

export async function reportsUnit(label: string, env: Record<string, string> = {}): Promise<ReportsUnit> {
  const db = await testSchema(MIGRATIONS_DIR, label);
  const config = loadReportsConfig({
    INTERNAL_AUTH_TOKEN: 'x'.repeat(32),
    INTERNAL_CALLERS: formatCallers({ gateway: 'g'.repeat(32) }),
    LOG_LEVEL: 'silent',
    ...env,
  });
  let now = START;
  const analytics: ReportsUnit['analytics'] = { getReportData: async () => ({}) };
  const u = { analytics, wakes: 0, callers: [] as (Principal | undefined)[] };
  const seen = (h: Headers) => u.callers.push(decodePrincipal(h.get(PRINCIPAL_HEADER)));
  const sources = {
    analytics: inMemoryClient(AnalyticsService, (r) =>
      r.service(AnalyticsService, {
        getReportData: (req, ctx) => {
          seen(ctx.requestHeader);
          return u.analytics.getReportData(req, ctx);
        },
      }),
    ),
    runs: inMemoryClient(RunsService, (r) => r.service(RunsService, { listRuns: async () => ({ runs: [], page: { total: 0n } }) })),
    identity: inMemoryClient(IdentityService, (r) =>
      r.service(IdentityService, {
        async getProject(req) {
          if (req.projectId !== PROJECT) throw new ConnectError('unknown project', Code.NotFound);
          return { id: PROJECT, orgId: 'o'.repeat(24), name: 'Web Shop (EU)' };
        },
      }),
    ),
  };
  const w = wire(testContext('reports', config, db.pool), { clock: () => now, sources });
  w.onWake(() => u.wakes++);
  return Object.assign(u, {
    db,
    w,
    client: inMemoryClient(ReportsService, (router) => routes(router, w)),
    setNow: (d: Date) => {
      now = d;
    },
  });
}

/** What a call that must fail was refused with (reason, message, details). */
export const refused = (call: Promise<unknown>) =>
  call.then(
    () => Promise.reject(new Error('the call succeeded')),
    (err: unknown) => fromConnectError(err),
  );
