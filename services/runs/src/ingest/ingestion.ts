/**
 * Ingestion (CONTRACT §6): start → result batches → finish, and one-shot reports (Playwright JSON, JUnit XML,
 * the compatibility upload); and the skip list reporters fetch. Each write is one transaction: the run's state
 * change, its results, its usage and its lifecycle events (outbox) commit together or not at all, and with them the
 * call's Idempotency-Key record (./call.ts): a retry after a lost answer gets that answer, and nothing is written again.
 */
import type { PoolClient } from '@assay/db';
import { AppError, notFound } from '@assay/errors';
import { idempotentTransaction, jsonAnswers, type Principal } from '@assay/service-kit';
import type { AcceptedJson, RunAnswerJson, SkipListJson, StartedJson, TestRefJson } from '@assay/contracts/runs/ingest';
import type { FinishStatusName } from '@assay/contracts/runs/values';
import { fullTitleOf } from '../domain/identity';
import { compileRule } from '../domain/rules';
import { testStatsOf } from '../domain/snapshot';
import type { Wiring } from '../wiring';
import { enqueueRunEvent } from '../store/outbox';
import { activeRules, testsMatching } from '../store/action-rules';
import {
  finishRun,
  insertRun,
  joinBuildRun,
  lockBuildRun,
  lockRun,
  markShardFinished,
  numberRun,
  refreshRunStats,
  setRunHeader,
  type RunRow,
  type RunSource,
} from '../store/test-runs';
import { KnownTests, TestWriter, writeSharedRows, type IngestOutcome } from '../store/ingest';
import { assertQuotaLeft, charge } from '../store/usage';
import type { IngestCall } from './call';
import { normalizeMetadata, type NormMetadata, type ReportReader, type TestSink } from './normalize';

/** One shard of a sharded build: `current` of `total` (1-based, as Playwright's `--shard=current/total`). */
export interface Shard {
  current: number;
  total: number;
}

export interface StartBody {
  metadata: NormMetadata;
  totalTests?: number;
  startTime?: Date;
  buildId?: string;
  shard?: Shard;
}

/** What a result batch reader answers once it has handed over every item. */
export type BatchReader = (sink: TestSink) => Promise<{ accepted: number; tests: number }>;

export class Ingestion {
  /** Test identities committed by this process's ingestions (each batch's commit on its own). */
  private readonly knownTests = new KnownTests();

  constructor(private readonly w: Wiring) {}

  private answer(run: RunRow): RunAnswerJson {
    return {
      runId: run.id,
      counter: run.counter,
      status: run.status,
      url: this.w.links.run(run.projectId, run.id),
      testStats: testStatsOf(run),
      ...this.build(run),
    };
  }

  /** A build's run says which build and where its shards are. */
  private build(run: RunRow): Pick<StartedJson, 'buildId' | 'shards'> {
    if (run.buildId === null) return {};
    return { buildId: run.buildId, shards: { total: run.shardTotal, finished: run.shardsFinished } };
  }

  private started(run: RunRow): StartedJson {
    const { runId, counter, url, status } = this.answer(run);
    return { runId, counter, url, status, ...this.build(run) };
  }

  /**
   * One transaction, with the call's Idempotency-Key record if it has one (a recorded answer is replayed instead);
   * after its commit, wakes the relay (events written) and the linker (links queued).
   */
  private async tx<T>(
    call: IngestCall | undefined,
    fn: (c: PoolClient) => Promise<T>,
    after: { events?: boolean; links?: () => number } = {},
  ): Promise<T> {
    const { answer: result, replayed } = await idempotentTransaction(this.w.pool, call?.idem(), jsonAnswers<T>(), fn);
    if (replayed) {
      call?.replayed();
      return result;
    }
    if (after.events) this.w.eventsWritten();
    if ((after.links?.() ?? 0) > 0) this.w.linksQueued();
    return result;
  }

  /**
   * A sink writing the tests a reader hands over into `run`, inside the caller's transaction, and what it wrote.
   * The writes of a chunk go on while the reader reads the next one (at most one chunk in flight: the next hand-over
   * waits for it, and a failed write fails that hand-over); `read` runs the reader and waits for the last write.
   * `newRun`: the run was created by this transaction (its tests are encoded as they come, the next chunk while the
   * previous one is written).
   */
  private async writer(c: PoolClient, run: RunRow, now: Date, newRun: boolean) {
    const rules = (await activeRules(c, run.projectId, now)).map(compileRule);
    const quarantine = rules.filter((r) => r.rule.operations.includes('quarantine'));
    const total = { newResults: 0, tests: 0, linksQueued: 0, durationMs: 0, quarantined: [] as TestRefJson[] };
    // Shared rows commit on their own (alongside each batch, before this transaction ends): concurrent first uploads
    // of the same new tests or failures do not wait for each other.
    const writer = new TestWriter(c, run, rules, newRun, (projectId, rows) =>
      writeSharedRows(this.w.sharedRows, projectId, rows, this.knownTests),
    );
    let inFlight: Promise<void> = Promise.resolve();
    /** Starts `write` once the write in flight is done. */
    const next = async (write: () => Promise<IngestOutcome>) => {
      await inFlight;
      inFlight = write().then((out) => {
        total.newResults += out.newResults;
        total.tests += out.tests;
        total.linksQueued += out.linksQueued;
      });
      // Awaited by the next hand-over or by `read`; until then its failure is not an unhandled rejection.
      inFlight.catch(() => undefined);
    };
    // Not async: what waits for the write in flight holds the encoded chunk only, not its tests.
    const sink: TestSink = (tests) => {
      for (const t of tests) {
        if (quarantine.some((r) => r.matches({ file: t.file, fullTitle: fullTitleOf(t.titlePath), tags: t.tags })))
          total.quarantined.push({ file: t.file, titlePath: t.titlePath, projectName: t.projectName });
        for (const a of t.attempts) total.durationMs += a.durationMs;
      }
      if (!newRun) return next(() => writer.write(tests));
      return writer.add(tests).then((done) => (done.batches.length > 0 ? next(() => writer.send(done)) : undefined));
    };
    const read = async <T>(reader: (sink: TestSink) => Promise<T>): Promise<T> => {
      try {
        const answer = await reader(sink);
        if (newRun) {
          const last = writer.end();
          if (last.batches.length > 0) await next(() => writer.send(last));
        }
        await inFlight;
        return answer;
      } catch (err) {
        // The transaction ends (rolls back) only once the write in flight is done; that write holds tests read before
        // the reader failed, so its own failure, if any, is the first problem of the report.
        const written = await inFlight.then(
          () => ({ failed: false as const }),
          (error: unknown) => ({ failed: true as const, error }),
        );
        throw written.failed ? written.error : err;
      }
    };
    return { read, total };
  }

  /**
   * A new running run (RUN_STARTED), or with a build id the build's run: the first shard to start creates it
   * (`created`), the others join it (no new event, no new run counted in usage). A build whose run has finished
   * is a 409, and so is a shard total other than the one the run has.
   */
  async open(projectId: string, caller: Principal, body: StartBody, call?: IngestCall): Promise<{ created: boolean; run: StartedJson }> {
    const now = this.w.clock();
    return this.tx(
      call,
      async (c) => {
        if (body.buildId !== undefined) {
          const existing = await lockBuildRun(c, projectId, body.buildId);
          if (existing) {
            if (existing.status !== 'running')
              throw new AppError(
                'CONFLICT',
                `The run of build ${body.buildId} is ${existing.status}; a finished build takes no new shards`,
              );
            this.checkShardTotal(existing, body.shard);
            return { created: false, run: this.started(await joinBuildRun(c, existing.id, body.shard?.total ?? null)) };
          }
        }
        await assertQuotaLeft(c, caller.orgId, now, this.w.defaultPlan);
        const run = await insertRun(c, {
          projectId,
          orgId: caller.orgId,
          source: 'stream',
          metadata: body.metadata,
          totalTests: body.totalTests,
          startTime: body.startTime ?? now,
          createdBy: caller.tokenId,
          buildId: body.buildId,
          shardTotal: body.shard?.total,
        });
        await enqueueRunEvent(c, 'RUN_STARTED', run, this.w.links, now);
        await charge(c, caller.orgId, now, { testResults: 0, runs: 1 }, this.w.defaultPlan);
        return { created: true, run: this.started(run) };
      },
      { events: true },
    );
  }

  /** `open`, answering the run only. */
  async start(projectId: string, caller: Principal, body: StartBody): Promise<StartedJson> {
    return (await this.open(projectId, caller, body)).run;
  }

  private checkShardTotal(run: RunRow, shard: Shard | undefined): void {
    if (shard && run.shardTotal !== null && run.shardTotal !== shard.total)
      throw new AppError('CONFLICT', `The run of build ${run.buildId ?? run.id} has ${run.shardTotal} shards, not ${shard.total}`);
  }

  async results(projectId: string, runId: string, read: BatchReader, call?: IngestCall): Promise<AcceptedJson> {
    const now = this.w.clock();
    let queued = 0;
    return this.tx(
      call,
      async (c) => {
        const run = await lockRun(c, projectId, runId);
        if (!run || run.status !== 'running') {
          // A malformed batch is answered as such (400) whatever the run, as when batches were read before the run.
          await read(async () => undefined);
          if (!run) throw notFound('Run');
          throw new AppError('CONFLICT', `The run is ${run.status}; results can only be added while it is running`);
        }
        const { read: readAll, total } = await this.writer(c, run, now, false);
        const counts = await readAll(read);
        await refreshRunStats(c, run.id);
        queued = total.linksQueued;
        await charge(c, run.orgId, now, { testResults: total.newResults, runs: 0 }, this.w.defaultPlan);
        return { runId, accepted: counts.accepted, tests: counts.tests, newResults: total.newResults, quarantined: total.quarantined };
      },
      { links: () => queued },
    );
  }

  /**
   * Finishing twice is harmless: a run that is no longer running is answered as it is, with no new event. With
   * a shard, the shard is marked finished and the run finishes (status computed, RUN_FINISHED) only once all
   * its shards have; until then it is answered still running.
   */
  async finish(
    projectId: string,
    runId: string,
    body: { status?: FinishStatusName; endTime?: Date; shard?: Shard },
    call?: IngestCall,
  ): Promise<RunAnswerJson> {
    const now = this.w.clock();
    return this.tx(
      call,
      async (c) => {
        const run = await lockRun(c, projectId, runId);
        if (!run) throw notFound('Run');
        if (run.status !== 'running') return this.answer(run);
        await refreshRunStats(c, run.id);
        if (body.shard) {
          this.checkShardTotal(run, body.shard);
          const marked = await markShardFinished(c, run.id, body.shard.current, body.shard.total);
          if (marked.shardsFinished.length < (marked.shardTotal ?? body.shard.total)) return this.answer(marked);
        }
        const done = await finishRun(c, run.id, { status: body.status, endTime: body.endTime });
        await enqueueRunEvent(c, 'RUN_FINISHED', done, this.w.links, now);
        return this.answer(done);
      },
      { events: true },
    );
  }

  /**
   * start + results + finish in one transaction, written while the report is read (memory stays bounded: see
   * ./stream.ts). The run takes its number — the project's counter lock, which every other run creation in the
   * project waits for — only once its tests are written, just before the commit.
   */
  async oneShot(
    projectId: string,
    caller: Principal,
    source: Exclude<RunSource, 'stream'>,
    read: ReportReader,
    call?: IngestCall,
  ): Promise<RunAnswerJson> {
    const now = this.w.clock();
    let queued = 0;
    return this.tx(
      call,
      async (c) => {
        await assertQuotaLeft(c, caller.orgId, now, this.w.defaultPlan);
        const run = await insertRun(
          c,
          { projectId, orgId: caller.orgId, source, metadata: normalizeMetadata(undefined), startTime: now, createdBy: caller.tokenId },
          { counter: false },
        );
        const { read: readAll, total } = await this.writer(c, run, now, true);
        const report = await readAll(read);
        queued = total.linksQueued;
        const startTime = report.startTime ? new Date(report.startTime) : new Date(now.getTime() - (report.durationMs ?? 0));
        await setRunHeader(c, run.id, {
          metadata: report.metadata,
          totalTests: total.tests,
          startTime,
          coverage: report.coverage,
          reportErrors: report.errors,
        });
        await refreshRunStats(c, run.id);
        const numbered = await numberRun(c, run);
        // The lifecycle as a streamed run would have had it: started (nothing counted yet), then finished.
        await enqueueRunEvent(c, 'RUN_STARTED', { ...numbered, stats: run.stats }, this.w.links, now);
        const done = await finishRun(c, run.id, {
          status: report.errors.length > 0 && total.tests === 0 ? 'interrupted' : undefined,
          durationMs: report.durationMs ?? total.durationMs,
        });
        await enqueueRunEvent(c, 'RUN_FINISHED', done, this.w.links, now);
        await charge(c, caller.orgId, now, { testResults: total.newResults, runs: 1 }, this.w.defaultPlan);
        return this.answer(done);
      },
      { events: true, links: () => queued },
    );
  }

  /** `GET /ingest/{projectId}/skip-list`: the tests that active skip rules name, for reporters. */
  async skipList(projectId: string): Promise<SkipListJson> {
    const rules = (await activeRules(this.w.pool, projectId, this.w.clock())).filter((r) => r.operations.includes('skip')).map(compileRule);
    if (rules.length === 0) return { rules: [], tests: [] };
    const tests = (await testsMatching(this.w.pool, projectId)).filter((t) => rules.some((r) => r.matches(t)));
    return {
      rules: rules.map(({ rule }) => ({
        id: rule.id,
        name: rule.name,
        titlePattern: rule.titlePattern,
        file: rule.file,
        tag: rule.matchTag,
      })),
      tests: tests.map((t) => ({ testId: t.id, file: t.file, titlePath: t.titlePath, title: t.fullTitle, projectName: t.projectName })),
    };
  }
}
