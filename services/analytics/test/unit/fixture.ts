/**
 * The analytics handler tests' setting: the service wired on a schema of its own (testSchema), a fixed clock, an
 * in-memory runs service that knows the runs a test adds, clients of AnalyticsService and AnalyticsAdminService
 * through the in-memory transport, and a builder of finished runs.
 */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError } from '@connectrpc/connect';
import { AnalyticsAdminService, AnalyticsService } from '@assay/proto/assay/analytics/v1/analytics_pb';
import { RunSnapshotSchema, type RunSnapshot } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { RunResultSchema, RunsService, type RunResult } from '@assay/proto/assay/runs/v1/runs_pb';
import { fromConnectError } from '@assay/errors';
import { attemptStatus, testOutcome } from '@assay/contracts/runs/test-cases';
import { runStatus } from '@assay/contracts/runs/test-runs';
import type { RunStatusName } from '@assay/contracts/runs/values';
import { formatCallers } from '@assay/service-kit';
import { inMemoryClient, testContext, testSchema, type TestSchema } from '@assay/testkit';
import { loadAnalyticsConfig } from '../../src/config';
import { routes } from '../../src/routes';
import { MIGRATIONS_DIR } from '../../src/service';
import { wire, type Wiring } from '../../src/wiring';
import type { RunWithResults } from '../../src/store/fold';

/** The tests' today: 2026-03-10 (UTC), noon. */
export const NOW = new Date('2026-03-10T12:00:00.000Z');
/** `days` before today, at `hour` UTC. */
export const daysAgo = (days: number, hour = 9) => new Date(Date.UTC(2026, 2, 10 - days, hour));

export interface ResultSpec {
  test: string;
  file?: string;
  outcome?: 'expected' | 'unexpected' | 'flaky' | 'skipped';
  ms?: number;
  tags?: string[];
}

export interface RunSpec {
  id: string;
  at: Date;
  status?: RunStatusName;
  branch?: string;
  environment?: string;
  author?: string;
  tags?: string[];
  results?: ResultSpec[];
}

/** A run (RunSnapshot) and its results as the runs service answers them. */
export function runOf(projectId: string, s: RunSpec): RunWithResults {
  const results: RunResult[] = (s.results ?? []).map((r, i) =>
    create(RunResultSchema, {
      id: `${s.id}-${i}`,
      runId: s.id,
      projectId,
      testId: `${r.file ?? 'a.spec.ts'}:${r.test}`,
      file: r.file ?? 'a.spec.ts',
      titlePath: ['suite', r.test],
      projectName: 'chromium',
      status: attemptStatus.toProto(r.outcome === 'skipped' ? 'skipped' : r.outcome === 'unexpected' ? 'failed' : 'passed'),
      outcome: testOutcome.toProto(r.outcome ?? 'expected'),
      durationMs: BigInt(r.outcome === 'skipped' ? 0 : (r.ms ?? 100)),
      attempts: r.outcome === 'flaky' ? 2 : 1,
      tags: r.tags ?? [],
    }),
  );
  const run: RunSnapshot = create(RunSnapshotSchema, {
    id: s.id,
    status: runStatus.toProto(s.status ?? ((s.results ?? []).some((r) => r.outcome === 'unexpected') ? 'failed' : 'passed')),
    startTime: timestampFromDate(s.at),
    git: { branch: s.branch ?? 'main', environment: s.environment ?? 'staging', commit: { author: s.author ?? 'Ada' } },
    tags: s.tags ?? [],
  });
  return { run, results };
}

/** The runs service as analytics sees it, answering from `known` (run id → project and run). */
function fakeRuns(known: Map<string, { projectId: string; input: RunWithResults }>) {
  return inMemoryClient(RunsService, (router) =>
    router.service(RunsService, {
      async listRunResults(req) {
        const k = known.get(req.runId);
        if (!k) throw new ConnectError('unknown run', Code.NotFound);
        return { run: k.input.run, results: k.input.results };
      },
      async listRuns(req) {
        const runs = [...known.values()]
          .filter((k) => k.projectId === req.projectId && (req.status === undefined || k.input.run.status === req.status))
          .map((k) => k.input.run)
          .sort((a, b) => Number(b.startTime!.seconds - a.startTime!.seconds));
        const limit = req.page?.limit ?? 10;
        return { runs: runs.slice(0, limit), page: { page: 1, limit, total: BigInt(runs.length) } };
      },
      async scanRuns(req) {
        return {
          runs: [...known.values()]
            .filter((k) => !req.projectId || k.projectId === req.projectId)
            .map((k) => ({ projectId: k.projectId, orgId: 'o', run: k.input.run })),
        };
      },
    }),
  );
}

export interface AnalyticsUnit {
  db: TestSchema;
  w: Wiring;
  client: ReturnType<typeof inMemoryClient<typeof AnalyticsService>>;
  admin: ReturnType<typeof inMemoryClient<typeof AnalyticsAdminService>>;
  /** Makes the runs known to the runs service (for a fold by the consumer or a rebuild). */
  publish(projectId: string, ...runs: RunSpec[]): RunWithResults[];
  /** Publishes the runs and folds them into the read model (as the consumer does for RUN_FINISHED). */
  fold(projectId: string, ...runs: RunSpec[]): Promise<void>;
}

export async function analyticsUnit(label: string, env: Record<string, string> = {}): Promise<AnalyticsUnit> {
  const db = await testSchema(MIGRATIONS_DIR, label);
  const config = loadAnalyticsConfig({
    INTERNAL_AUTH_TOKEN: 'x'.repeat(32),
    INTERNAL_CALLERS: formatCallers({ gateway: 'g'.repeat(32) }),
    LOG_LEVEL: 'silent',
    ...env,
  });
  const known = new Map<string, { projectId: string; input: RunWithResults }>();
  const w = wire(testContext('analytics', config, db.pool), { clock: () => NOW, runs: fakeRuns(known) });
  const publish = (projectId: string, ...runs: RunSpec[]) =>
    runs.map((s) => {
      const input = runOf(projectId, s);
      known.set(s.id, { projectId, input });
      return input;
    });
  return {
    db,
    w,
    client: inMemoryClient(AnalyticsService, (router) => routes(router, w)),
    admin: inMemoryClient(AnalyticsAdminService, (router) => routes(router, w)),
    publish,
    fold: async (projectId, ...runs) => {
      await w.model.fold(projectId, publish(projectId, ...runs));
    },
  };
}

/** What a call that must fail was refused with (reason, message, details). */
export const refused = (call: Promise<unknown>) =>
  call.then(
    () => Promise.reject(new Error('the call succeeded')),
    (err: unknown) => fromConnectError(err),
  );
