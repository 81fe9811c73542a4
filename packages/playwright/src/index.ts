/**
 * @assay/playwright: a Playwright reporter that streams a run into Assay while it runs.
 *
 *   reporter: [['list'], ['@assay/playwright', { url: 'https://assay.example.com' }]]   (token: ASSAY_TOKEN)
 *
 * - onBegin starts the run (RUN_STARTED fires then); the shards of one CI build join one run (build id).
 * - Each finished attempt is queued and sent in batches (every `batchSize` results or `flushIntervalMs`);
 *   attachments with a file (screenshots, videos, traces) are uploaded once their result was accepted.
 * - onEnd sends what is left, finishes the run (or this shard of it), prints the run's URL, and turns a failed
 *   run whose only failures are quarantined in Assay into a passed one (the console names those tests).
 * - Assay being slow or down never fails the tests: calls retry with backoff (@assay/client), the queue is
 *   bounded, and every problem is a warning on stderr.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AssayClient } from '@assay/client';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult, TestStep } from '@playwright/test/reporter';
import { buildIdFromEnv, metadataFromEnv, type RunMetadata } from './ci.ts';
import { clientFor, describeError, projectIdOf, resolveConnection, type Connection, type ResolvedConnection } from './settings.ts';

export { buildIdFromEnv, metadataFromEnv, type RunMetadata } from './ci.ts';
export { skipRuleFor, type SkipList, type SkipRule, type TestIdentity } from './rules.ts';
export type { Connection } from './settings.ts';

export interface AssayReporterOptions extends Connection {
  /**
   * The CI build this run belongs to: shards with the same build id report into one run. Default:
   * ASSAY_BUILD_ID, else the CI's own (GitHub run id + attempt, GitLab pipeline, Buildkite build, CircleCI
   * workflow, …), used only when the run is sharded (`--shard`) or ASSAY_BUILD_ID is set.
   */
  buildId?: string;
  /** Run metadata (branch, commit, environment, CI, tags), over what the CI environment says. */
  metadata?: RunMetadata;
  /** Results per batch. Default 50. */
  batchSize?: number;
  /** A batch is sent at the latest this long after its first result (ms). Default 1000. */
  flushIntervalMs?: number;
  /** Results kept in memory while Assay does not answer; beyond, the oldest are dropped (with a warning). Default 10000. */
  maxBufferedResults?: number;
  /** Upload attachments that have a file (screenshots, videos, traces). Default true. */
  uploadAttachments?: boolean;
  /** How long onEnd waits for the queue to drain before it gives up on the rest (ms). Default 120000. */
  endTimeoutMs?: number;
  /** Let a run whose only failures are quarantined in Assay pass (exit code 0). Default true. */
  quarantine?: boolean;
}

interface Item {
  testId: string;
  body: Record<string, unknown>;
  attachments: { name: string; path: string }[];
  retry: number;
  ref: { file: string; titlePath: string[]; projectName: string };
}

interface Started {
  runId: string;
  url: string;
  counter: number;
  projectId: string;
  /** The run is the build's, shared with other shards: finishing marks this shard done. */
  sharded: boolean;
}

type Shard = { current: number; total: number } | null;

const PREFIX = '[assay]';

export default class AssayReporter implements Reporter {
  private readonly options: AssayReporterOptions;
  private readonly conn: ResolvedConnection | undefined;
  private client: AssayClient | undefined;
  private config!: FullConfig;
  private suite: Suite | undefined;
  private shard: Shard = null;
  private started: Promise<Started | undefined> = Promise.resolve(undefined);
  private run: Started | undefined;
  private disabled = false;
  private readonly queue: Item[] = [];
  private readonly uploads: (Item['ref'] & { retry: number; name: string; path: string })[] = [];
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  /** One batch or upload at a time, in order: results before their attachments. */
  private chain: Promise<void> = Promise.resolve();
  private readonly quarantined = new Set<string>();
  private readonly byKey = new Map<string, string>();
  private globalErrors = 0;
  private readonly warned = new Set<string>();
  private lastFailure = 0;

  constructor(options: AssayReporterOptions = {}) {
    this.options = options;
    const conn = resolveConnection(options);
    if ('missing' in conn) {
      this.disabled = true;
      if (process.env.ASSAY_DISABLED !== '1') this.warn(`not reporting: ${conn.missing}`);
      return;
    }
    this.conn = conn;
    if (process.env.ASSAY_DISABLED === '1') this.disabled = true;
    // The workers (forked after this) read these for the skip rules of @assay/playwright/test.
    process.env.ASSAY_URL ??= conn.url;
    process.env.ASSAY_TOKEN ??= conn.token;
    if (conn.projectId) process.env.ASSAY_PROJECT_ID ??= conn.projectId;
  }

  printsToStdio(): boolean {
    return false;
  }

  private warn(message: string, once?: string): void {
    if (once) {
      if (this.warned.has(once)) return;
      this.warned.add(once);
    }
    process.stderr.write(`${PREFIX} ${message}\n`);
  }

  private stop(why: string): void {
    if (!this.disabled) this.warn(`${why}; results of this run are not reported to Assay (the tests go on)`);
    this.disabled = true;
    this.queue.length = 0;
    this.uploads.length = 0;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.config = config;
    this.suite = suite;
    this.shard = config.shard ? { current: config.shard.current, total: config.shard.total } : null;
    if (this.disabled || !this.conn) return;
    this.client = clientFor(this.conn, (why) => this.warn(`Assay is not answering (${why}); retrying`, 'retrying'));
    this.started = this.start(suite.allTests().length).catch((err) => {
      this.stop(`could not start the run: ${describeError(err)}`);
      return undefined;
    });
  }

  private signal(): AbortSignal {
    return AbortSignal.timeout(this.conn!.requestTimeoutMs);
  }

  private async start(totalTests: number): Promise<Started | undefined> {
    const client = this.client!;
    const projectId = await projectIdOf(client, this.conn!);
    if (!process.env.ASSAY_PROJECT_ID) process.env.ASSAY_PROJECT_ID = projectId;
    const explicit = this.options.buildId ?? process.env.ASSAY_BUILD_ID;
    const buildId = explicit ?? (this.shard ? buildIdFromEnv() : undefined);
    if (this.shard && !buildId)
      this.warn(
        `shard ${this.shard.current}/${this.shard.total} without a build id (ASSAY_BUILD_ID or a known CI): it reports as a run of its own`,
      );
    const env = metadataFromEnv();
    const m = this.options.metadata ?? {};
    const metadata: RunMetadata = {
      ...env,
      ...m,
      git: m.git || env.git ? { ...env.git, ...m.git, commit: { ...env.git?.commit, ...m.git?.commit } } : undefined,
      ci: m.ci || env.ci ? { ...env.ci, ...m.ci } : undefined,
    };
    // A shard of a build joins the build's run; anything else is a run of its own, with its own test count.
    const own = { metadata, totalTests };
    const body = buildId && this.shard ? { metadata, buildId, shard: this.shard } : buildId ? { ...own, buildId } : own;
    const post = (b: object) =>
      // The ingestion routes stream their bodies: the OpenAPI document has no request body schema for them.
      client.POST('/api/v1/ingest/{projectId}/runs', { params: { path: { projectId } }, body: b as never, signal: this.signal() });
    let res = await post(body);
    if (res.response.status === 409 && buildId) {
      this.warn(`the run of build ${buildId} has finished already (${res.error?.error.message ?? 'conflict'}); starting a new run`);
      res = await post(own);
    }
    if (!res.data) throw new Error(`HTTP ${res.response.status} ${res.error?.error.code ?? ''} ${res.error?.error.message ?? ''}`.trim());
    const { runId, url, counter, shards } = res.data.data;
    this.run = { runId, url, counter, projectId, sharded: shards !== undefined && this.shard !== null };
    return this.run;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (this.disabled) return;
    try {
      const item = this.item(test, result);
      this.byKey.set(JSON.stringify([item.ref.file, item.ref.titlePath, item.ref.projectName]), test.id);
      this.queue.push(item);
      if (this.queue.length > (this.options.maxBufferedResults ?? 10_000)) {
        this.queue.shift();
        this.dropped++;
        this.warn('Assay is behind: the oldest buffered results are dropped', 'dropped');
      }
      if (this.queue.length >= (this.options.batchSize ?? 50)) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.options.flushIntervalMs ?? 1000);
    } catch (err) {
      this.warn(`could not read a result: ${describeError(err)}`, 'item');
    }
  }

  onError(_error: TestError): void {
    this.globalErrors++;
  }

  /** Sends what is queued (in the background, in order). */
  private flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.chain = this.chain.then(() => this.drain()).catch((err) => this.warn(`reporting failed: ${describeError(err)}`));
    return this.chain;
  }

  private async drain(): Promise<void> {
    const run = await this.started;
    while (run && !this.disabled && this.queue.length > 0) {
      // After a failed batch, wait a little before the next try (the client already retried with backoff).
      const wait = this.lastFailure + 2000 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const batch = this.queue.slice(0, this.options.batchSize ?? 50);
      if (!(await this.send(run, batch))) return;
      this.queue.splice(0, batch.length);
      await this.upload(run);
    }
  }

  /** One batch; true when it is done with (accepted, or refused for good). */
  private async send(run: Started, batch: Item[]): Promise<boolean> {
    let res;
    try {
      res = await this.client!.POST('/api/v1/ingest/{projectId}/runs/{runId}/results', {
        params: { path: { projectId: run.projectId, runId: run.runId } },
        body: { results: batch.map((b) => b.body) } as never,
        signal: this.signal(),
      });
    } catch (err) {
      this.lastFailure = Date.now();
      this.warn(`could not send results (kept, will retry): ${describeError(err)}`, 'send');
      return false;
    }
    const status = res.response.status;
    if (res.data) {
      for (const q of res.data.data.quarantined) {
        const id = this.byKey.get(JSON.stringify([q.file, q.titlePath, q.projectName]));
        if (id) this.quarantined.add(id);
      }
      if (this.options.uploadAttachments !== false)
        for (const b of batch) for (const a of b.attachments) this.uploads.push({ ...b.ref, retry: b.retry, name: a.name, path: a.path });
      return true;
    }
    const why = `HTTP ${status} ${res.error?.error.code ?? ''}: ${res.error?.error.message ?? ''}`;
    if (status === 409 || status === 404 || status === 401 || status === 403) {
      this.stop(`Assay refused the results (${why})`);
      return true;
    }
    if (status === 429 || status >= 500) {
      this.lastFailure = Date.now();
      this.warn(`Assay could not take results (${why}); kept, will retry`, 'send');
      return false;
    }
    this.warn(`Assay refused a batch of ${batch.length} results (${why}); dropped`);
    return true;
  }

  private async upload(run: Started): Promise<void> {
    while (!this.disabled && this.uploads.length > 0) {
      const a = this.uploads.shift()!;
      let bytes: Buffer;
      try {
        bytes = await fs.promises.readFile(a.path);
      } catch {
        continue; // removed since (e.g. a video of a passing test with `retain-on-failure`)
      }
      try {
        const res = await this.client!.POST('/api/v1/ingest/{projectId}/runs/{runId}/artifacts', {
          params: {
            path: { projectId: run.projectId, runId: run.runId },
            query: { file: a.file, titlePath: a.titlePath, projectName: a.projectName, retry: a.retry, name: a.name, path: a.path },
          },
          body: bytes as never,
          bodySerializer: (b: unknown) => b,
          headers: { 'content-type': 'application/octet-stream' },
          signal: this.signal(),
        } as never);
        if (!res.response.ok)
          this.warn(`could not upload ${path.basename(a.path)}: HTTP ${res.response.status} ${res.error?.error.message ?? ''}`.trim());
      } catch (err) {
        this.warn(`could not upload ${path.basename(a.path)}: ${describeError(err)}`);
      }
    }
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    try {
      return await this.end(result);
    } catch (err) {
      this.warn(`could not finish the run: ${describeError(err)}`);
      return undefined;
    }
  }

  private async end(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    // The start (still retrying, when Assay is slow) and the rest of the queue get endTimeoutMs in all.
    const deadline = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), this.options.endTimeoutMs ?? 120_000).unref());
    let run: Started | undefined;
    const drained = (async () => {
      run = await this.started;
      // Each flush waits for everything queued before it (a batch or an upload may be under way): at least one.
      let more = run !== undefined;
      while (more) {
        await this.flush();
        more = !this.disabled && (this.queue.length > 0 || this.uploads.length > 0);
      }
      return 'done' as const;
    })();
    if ((await Promise.race([drained, deadline])) === 'timeout') {
      this.warn(`gave up on ${this.queue.length} results and ${this.uploads.length} attachments after waiting for Assay`);
      this.stop('Assay is too slow');
      return undefined;
    }
    if (this.dropped > 0) this.warn(`${this.dropped} results were dropped while Assay was behind`);
    if (!run || this.disabled) return undefined;
    const fin = await this.client!.POST('/api/v1/ingest/{projectId}/runs/{runId}/finish', {
      params: { path: { projectId: run.projectId, runId: run.runId } },
      body: (run.sharded ? { shard: this.shard } : {}) as never,
      signal: this.signal(),
    });
    if (!fin.data) this.warn(`could not finish the run: HTTP ${fin.response.status} ${fin.error?.error.message ?? ''}`.trim());
    const shardNote =
      run.sharded && this.shard
        ? fin.data?.data.status === 'running'
          ? ` (shard ${this.shard.current}/${this.shard.total} done; the run finishes with the last shard)`
          : ` (shard ${this.shard.current}/${this.shard.total}, the last)`
        : '';
    process.stdout.write(`${PREFIX} run #${run.counter}${fin.data ? ` ${fin.data.data.status}` : ''}${shardNote}: ${run.url}\n`);
    return this.quarantine(result);
  }

  /** `passed` when the run failed only because of tests Assay quarantines (and says which). */
  private quarantine(result: FullResult): { status?: FullResult['status'] } | undefined {
    if (this.options.quarantine === false || result.status !== 'failed' || this.globalErrors > 0) return undefined;
    const failing = this.suite?.allTests().filter((t) => t.outcome() === 'unexpected') ?? [];
    const held = failing.filter((t) => this.quarantined.has(t.id));
    if (held.length === 0) return undefined;
    const names = held
      .map((t) => {
        const r = this.ref(t);
        return `  ${r.projectName ? `[${r.projectName}] ` : ''}${r.file} › ${r.titlePath.join(' › ')}`;
      })
      .join('\n');
    if (held.length < failing.length) {
      process.stdout.write(`${PREFIX} quarantined in Assay (still failing the run, other tests failed too):\n${names}\n`);
      return undefined;
    }
    process.stdout.write(`${PREFIX} every failing test is quarantined in Assay, so the run passes:\n${names}\n`);
    return { status: 'passed' };
  }

  // ---- the item of one attempt, in the ingestion API's per-test shape ------------------------------------

  private ref(test: TestCase): Item['ref'] {
    const titles: string[] = [];
    for (let s: Suite | undefined = test.parent; s && s.type === 'describe'; s = s.parent) titles.unshift(s.title);
    let project: Suite | undefined = test.parent;
    while (project && project.type !== 'project') project = project.parent;
    const root = this.config?.rootDir ?? process.cwd();
    return {
      file: path.relative(root, test.location.file).split(path.sep).join('/'),
      titlePath: [...titles, test.title],
      projectName: project?.project()?.name ?? '',
    };
  }

  private item(test: TestCase, result: TestResult): Item {
    const ref = this.ref(test);
    const root = this.config?.rootDir ?? process.cwd();
    const rel = (f: string) => path.relative(root, f).split(path.sep).join('/');
    const location = (l: { file: string; line: number; column: number } | undefined) => (l ? { ...l, file: rel(l.file) } : undefined);
    const error = (e: TestError) => ({
      message: e.message ?? e.value ?? '',
      stack: e.stack,
      location: location(e.location),
      snippet: e.snippet,
    });
    const steps = (list: TestStep[], depth = 0): object[] =>
      depth > 20
        ? []
        : list
            .filter((s) => s.category === 'test.step' || s.category === 'expect')
            .map((s) => ({
              title: s.title,
              category: s.category,
              duration: Math.max(0, s.duration),
              error: s.error ? error(s.error) : undefined,
              steps: steps(s.steps, depth + 1),
            }));
    const output = (chunks: (string | Buffer)[]) =>
      chunks.map((c) => (typeof c === 'string' ? { text: c } : { buffer: c.toString('base64') }));
    const attachments = result.attachments.map((a) => ({ name: a.name, contentType: a.contentType, path: a.path }));
    return {
      testId: test.id,
      ref,
      retry: result.retry,
      attachments: result.attachments
        .filter((a): a is typeof a & { path: string } => !!a.path)
        .map((a) => ({ name: a.name, path: a.path })),
      body: {
        ...ref,
        status: result.status,
        expectedStatus: test.expectedStatus,
        duration: Math.max(0, result.duration),
        retry: result.retry,
        startTime: result.startTime.toISOString(),
        ...(result.workerIndex >= 0 ? { workerIndex: result.workerIndex } : {}),
        errors: result.errors.map(error),
        steps: steps(result.steps),
        stdout: output(result.stdout),
        stderr: output(result.stderr),
        attachments,
        annotations: test.annotations.map((a) =>
          a.description === undefined ? { type: a.type } : { type: a.type, description: a.description },
        ),
        tags: test.tags,
        location: location(test.location),
        ...(this.shard ? { shard: this.shard.current } : {}),
      },
    };
  }
}

export { AssayReporter };
