/**
 * The read model as one object the consumer, the workers and the handlers share: folds runs (pulling their
 * results from the runs service), keeps the rolling windows current, rebuilds from scratch. Its SQL is in
 * store/ (fold.ts: the write side; read-model.ts: upkeep; windows.ts: the project's state).
 */
import type { Client } from '@connectrpc/connect';
import { Code, ConnectError } from '@connectrpc/connect';
import { RunStatus, type RunSnapshot } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { RunResultView, type ListRunResultsResponse, type RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { withTransaction, type Pool } from '@assay/db';
import type { Logger } from '@assay/logger';
import { systemClock, type Clock } from '@assay/service-kit';
import { dayOf } from './domain/days';
import { isRunning } from './domain/runs';
import {
  advanceWindows,
  foldRuns,
  lockProject,
  projectKeyOf,
  recordRunning,
  type FoldedResult,
  type FoldInput,
  type FoldOutcome,
} from './store/fold';
import { isEmpty, isFolded, readModelSize, resetAll, resetProject, staleProjects, type ReadModelSize } from './store/read-model';
import { projectState, type ProjectState } from './store/windows';

export interface ReadModelOptions {
  pool: Pool;
  runs: Client<typeof RunsService>;
  logger: Logger;
  now?: Clock;
  /** Rebuild: results folded per transaction. */
  batchResults?: number;
  /** Page size asked of RunsService.ListRunResults / ScanRuns. */
  pageSize?: number;
  /** A fold's bounds in memory (FOLD_CHUNK_RESULTS results, FOLD_MERGE_ROWS rollup rows); the tests make them small. */
  foldLimits?: { chunkResults?: number; mergeRows?: number };
}

export interface RebuildOutcome {
  projects: number;
  runs: number;
  results: number;
  ms: number;
}

export class ReadModel {
  readonly pool: Pool;
  readonly now: Clock;
  private readonly batchResults: number;
  private readonly pageSize: number;
  private readonly foldLimits: { chunkResults?: number; mergeRows?: number };

  constructor(private readonly o: ReadModelOptions) {
    this.pool = o.pool;
    this.now = o.now ?? systemClock;
    this.batchResults = o.batchResults ?? 50000;
    this.pageSize = o.pageSize ?? 1000; // small pages: a fold keeps PAGES_AHEAD of them in flight
    this.foldLimits = o.foldLimits ?? {};
  }

  today(): number {
    return dayOf(this.now());
  }

  /** RUN_STARTED: the run's branch, environment, author and tags are filter values from now on. */
  async runStarted(projectId: string, run: RunSnapshot): Promise<void> {
    const key = await projectKeyOf(this.pool, projectId, this.today());
    await recordRunning(this.pool, key, run);
  }

  /**
   * The runs running now, newest first, and how many there are: asked of the runs service, which has each run as
   * it is now (this model hears only of a run's start and finish, not of its results as they stream in).
   */
  async runningNow(projectId: string, limit: number, signal?: AbortSignal): Promise<{ count: number; runs: RunSnapshot[] }> {
    const res = await this.o.runs.listRuns({ projectId, status: RunStatus.RUNNING, page: { page: 1, limit } }, { signal });
    return { count: Number(res.page?.total ?? 0), runs: res.runs };
  }

  /**
   * RUN_FINISHED: folds the run's results (nothing happens for a run already folded). Its first page comes
   * first (the run's snapshot says whether it is known and finished); the fold pulls the others as it goes.
   */
  async runFinished(projectId: string, runId: string): Promise<FoldOutcome> {
    if (await isFolded(this.pool, runId)) return { runs: 0, results: 0 };
    const first = await this.page(runId, '');
    if (!first?.run) {
      this.o.logger.warn({ runId, projectId }, 'finished run unknown to the runs service; skipped');
      return { runs: 0, results: 0 };
    }
    if (isRunning(first.run)) {
      this.o.logger.warn({ runId }, 'run still running according to the runs service; skipped');
      return { runs: 0, results: 0 };
    }
    return this.fold(projectId, [{ run: first.run, results: () => this.resultPages(runId, first) }]);
  }

  /** Folds runs of one project in one transaction. */
  fold(projectId: string, inputs: FoldInput[]): Promise<FoldOutcome> {
    return withTransaction(this.pool, (c) => foldRuns(c, projectId, inputs, this.now(), this.foldLimits));
  }

  /** One page of a run's results, or undefined when the runs service does not know the run. */
  private async page(runId: string, pageToken: string): Promise<ListRunResultsResponse | undefined> {
    try {
      return await this.o.runs.listRunResults({ runId, pageToken, pageSize: this.pageSize, view: RunResultView.ROLLUP });
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.NotFound) return undefined;
      throw err;
    }
  }

  /**
   * A run's results page by page (from `first` when it was read already). A run deleted meanwhile ends its pages:
   * `assay run:delete` rebuilds the project's read model afterwards anyway.
   */
  private async *resultPages(runId: string, first?: ListRunResultsResponse): AsyncIterable<FoldedResult[]> {
    let page = first ?? (await this.page(runId, ''));
    while (page) {
      yield page.results;
      if (!page.nextPageToken) return;
      page = await this.page(runId, page.nextPageToken);
    }
  }

  /** The project's state with its windows moved to today (created on the way when a day passed). */
  async current(projectId: string): Promise<ProjectState | undefined> {
    const state = await projectState(this.pool, projectId);
    if (!state || state.asOf >= this.today()) return state;
    await this.advance(projectId);
    return projectState(this.pool, projectId);
  }

  /** Moves the project's windows to today (no-op when they are current). */
  async advance(projectId: string): Promise<void> {
    await withTransaction(this.pool, async (c) => {
      const today = this.today();
      const p = await lockProject(c, projectId, today);
      if (p.asOf < today) await advanceWindows(c, p.key, p.asOf, today);
    });
  }

  /** Projects whose windows are behind today (the roller moves them). */
  staleProjects(limit = 100): Promise<string[]> {
    return staleProjects(this.pool, this.today(), limit);
  }

  isEmpty(): Promise<boolean> {
    return isEmpty(this.pool);
  }

  /**
   * Drops the read model of one project (or all) and folds every run the runs service has again, in batches
   * of about `batchResults` results per transaction. Folds of the consumer may interleave: a run is folded
   * once whichever gets there first.
   */
  async rebuild(projectId: string | undefined): Promise<RebuildOutcome> {
    const started = Date.now();
    if (projectId) {
      await withTransaction(this.pool, async (c) => {
        const p = await lockProject(c, projectId, this.today());
        await resetProject(c, p.key, this.today());
      });
    } else {
      await resetAll(this.pool);
    }
    const outcome: RebuildOutcome = { projects: 0, runs: 0, results: 0, ms: 0 };
    const projects = new Set<string>();
    const pending = new Map<string, { inputs: FoldInput[]; results: number }>();
    let buffered = 0;
    const flush = async (pid: string) => {
      const p = pending.get(pid);
      if (!p) return;
      pending.delete(pid);
      buffered -= p.results;
      const done = await this.fold(pid, p.inputs);
      outcome.runs += done.runs;
      outcome.results += done.results;
    };
    let token = '';
    for (;;) {
      const page = await this.o.runs.scanRuns({ projectId: projectId ?? '', pageToken: token, pageSize: 500 });
      for (const s of page.runs) {
        if (!s.run) continue;
        projects.add(s.projectId);
        if (isRunning(s.run)) {
          await this.runStarted(s.projectId, s.run);
          continue;
        }
        const runId = s.run.id;
        const size = s.run.testStats?.total ?? 0;
        const p = pending.get(s.projectId) ?? { inputs: [], results: 0 };
        p.inputs.push({ run: s.run, results: () => this.resultPages(runId) });
        p.results += size;
        buffered += size;
        pending.set(s.projectId, p);
        if (p.results >= this.batchResults) await flush(s.projectId);
        else if (buffered >= this.batchResults) {
          const largest = [...pending.entries()].sort((a, b) => b[1].results - a[1].results)[0]!;
          await flush(largest[0]);
        }
      }
      if (!page.nextPageToken) break;
      token = page.nextPageToken;
    }
    for (const pid of [...pending.keys()]) await flush(pid);
    outcome.projects = projects.size;
    outcome.ms = Date.now() - started;
    this.o.logger.info({ projectId: projectId ?? '*', ...outcome }, 'read model rebuilt');
    return outcome;
  }

  status(projectId?: string): Promise<ReadModelSize> {
    return readModelSize(this.pool, projectId);
  }
}
