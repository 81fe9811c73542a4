/**
 * Ingestion (CONTRACT §6): start → result batches → finish, and one-shot reports (Playwright JSON, JUnit XML,
 * the compatibility upload). Each call is one transaction: the run's state change, its results, its usage and
 * its lifecycle events (outbox) commit together or not at all.
 */
import { withTransaction, type PoolClient } from '@assay/db';
import { AppError, notFound } from '@assay/errors';
import type { Principal } from '@assay/service-kit';
import { compileRule } from '../domain/rules';
import { toSnapshot } from '../domain/snapshot';
import type { Wiring } from '../wiring';
import { enqueueRunEvent } from '../store/outbox';
import { activeRules } from '../store/rules';
import { finishRun, insertRun, lockRun, refreshRunStats, type RunRow, type RunStatus } from '../store/runs';
import { writeTests } from '../store/ingest';
import { assertQuotaLeft, charge } from '../store/usage';
import type { NormMetadata, NormReport, NormTest } from './normalize';

export interface RunAnswer {
  runId: string;
  counter: number;
  status: RunStatus;
  url: string;
  testStats: ReturnType<typeof statsOf>;
}

const statsOf = (r: RunRow) => ({
  total: r.stats.total,
  passed: r.stats.passed,
  failed: r.stats.failed,
  skipped: r.stats.skipped,
  flaky: r.stats.flaky,
  timedOut: r.stats.timedOut,
  totalAttempts: r.stats.totalAttempts,
  retriedTests: r.stats.retriedTests,
});

export class Ingestion {
  constructor(private readonly rt: Wiring) {}

  private answer(run: RunRow): RunAnswer {
    return {
      runId: run.id,
      counter: run.counter,
      status: run.status,
      url: this.rt.links.run(run.projectId, run.id),
      testStats: statsOf(run),
    };
  }

  private async tx<T>(fn: (c: PoolClient) => Promise<T>, after: { events?: boolean; links?: boolean } = {}): Promise<T> {
    const result = await withTransaction(this.rt.pool, fn);
    if (after.events) this.rt.eventsWritten();
    if (after.links) this.rt.linksQueued();
    return result;
  }

  private async write(c: PoolClient, run: RunRow, tests: NormTest[]) {
    const rules = (await activeRules(c, run.projectId, this.rt.now())).map(compileRule);
    const out = await writeTests(c, run, tests, rules);
    await refreshRunStats(c, run.id);
    return out;
  }

  async start(
    projectId: string,
    caller: Principal,
    body: { metadata: NormMetadata; totalTests?: number; startTime?: Date },
  ): Promise<RunAnswer> {
    const now = this.rt.now();
    return this.tx(
      async (c) => {
        await assertQuotaLeft(c, caller.orgId, now, this.rt.defaultPlan);
        const run = await insertRun(c, {
          projectId,
          orgId: caller.orgId,
          source: 'stream',
          metadata: body.metadata,
          totalTests: body.totalTests,
          startTime: body.startTime ?? now,
          createdBy: caller.tokenId,
        });
        await enqueueRunEvent(c, 'RUN_STARTED', run, this.rt.links);
        await charge(c, caller.orgId, now, { testResults: 0, runs: 1 }, this.rt.defaultPlan);
        return this.answer(run);
      },
      { events: true },
    );
  }

  async results(projectId: string, runId: string, caller: Principal, tests: NormTest[]) {
    let queued = 0;
    const res = await this.tx(async (c) => {
      const run = await lockRun(c, projectId, runId);
      if (!run) throw notFound('Run');
      if (run.status !== 'running')
        throw new AppError('CONFLICT', `The run is ${run.status}; results can only be added while it is running`);
      const out = await this.write(c, run, tests);
      queued = out.linksQueued;
      await charge(c, run.orgId, this.rt.now(), { testResults: out.newResults, runs: 0 }, this.rt.defaultPlan);
      return { runId, accepted: tests.reduce((n, t) => n + t.attempts.length, 0), tests: out.tests, newResults: out.newResults };
    });
    if (queued > 0) this.rt.linksQueued();
    void caller;
    return res;
  }

  /** Finishing twice is harmless: a run that is no longer running is answered as it is, with no new event. */
  async finish(projectId: string, runId: string, body: { status?: RunStatus; endTime?: Date }): Promise<RunAnswer> {
    return this.tx(
      async (c) => {
        const run = await lockRun(c, projectId, runId);
        if (!run) throw notFound('Run');
        if (run.status !== 'running') return this.answer(run);
        await refreshRunStats(c, run.id);
        const done = await finishRun(c, run.id, { status: body.status, endTime: body.endTime });
        await enqueueRunEvent(c, 'RUN_FINISHED', done, this.rt.links);
        return this.answer(done);
      },
      { events: true },
    );
  }

  /** start + results + finish in one transaction. */
  async oneShot(projectId: string, caller: Principal, source: 'playwright' | 'junit' | 'compat', report: NormReport): Promise<RunAnswer> {
    const now = this.rt.now();
    let queued = 0;
    const answer = await this.tx(
      async (c) => {
        await assertQuotaLeft(c, caller.orgId, now, this.rt.defaultPlan);
        const summed = report.tests.reduce((n, t) => n + t.attempts.reduce((m, a) => m + a.durationMs, 0), 0);
        const durationMs = report.durationMs ?? summed;
        const startTime = report.startTime ? new Date(report.startTime) : new Date(now.getTime() - (report.durationMs ?? 0));
        const run = await insertRun(c, {
          projectId,
          orgId: caller.orgId,
          source,
          metadata: report.metadata,
          totalTests: report.tests.length,
          startTime,
          createdBy: caller.tokenId,
          coverage: report.coverage,
          reportErrors: report.errors,
        });
        await enqueueRunEvent(c, 'RUN_STARTED', run, this.rt.links);
        const out = await this.write(c, run, report.tests);
        queued = out.linksQueued;
        const done = await finishRun(c, run.id, {
          status: report.errors.length > 0 && report.tests.length === 0 ? 'interrupted' : undefined,
          durationMs,
        });
        await enqueueRunEvent(c, 'RUN_FINISHED', done, this.rt.links);
        await charge(c, caller.orgId, now, { testResults: out.newResults, runs: 1 }, this.rt.defaultPlan);
        return this.answer(done);
      },
      { events: true },
    );
    if (queued > 0) this.rt.linksQueued();
    return answer;
  }

  snapshotOf(run: RunRow) {
    return toSnapshot(run, this.rt.links);
  }
}
