/**
 * The write side of the read model, all under the project's row lock (one transaction each):
 * - `foldRuns`: marks runs folded (a run already folded is skipped: that is what makes replays harmless), then
 *   adds their results to the daily rollups and to the rolling windows that contain their day.
 * - `advanceWindows`: moves the rolling windows to a new day: adds the days that enter, subtracts the days that
 *   leave (histograms and counts subtract exactly; extremes that left are recomputed from the daily rows).
 */
import type { PoolClient, Queryable } from '@assay/db';
import { collectAfterBulkWork } from '@assay/service-kit';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { RunSnapshot } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import type { RunResult } from '@assay/proto/assay/runs/v1/runs_pb';
import { testOutcome } from '@assay/contracts/runs/test-cases';
import { bucketOf, mergeHist } from '../domain/histogram';
import { WINDOW_DAYS } from '@assay/contracts/analytics/values';
import { dayOf, dayStart } from '../domain/days';
import { runStatusOf } from '../domain/runs';
import { addAgg, AggBuilder, classOf, emptyAgg, maxOf, minOf, type Agg } from '../domain/stats';
import {
  addTagRows,
  deleteRows,
  FILE_DAYS,
  FILE_WINDOWS,
  insertRows,
  keyString,
  PROJECT_DAYS,
  PROJECT_WINDOWS,
  readRows,
  readRowsByKey,
  TEST_DAYS,
  TEST_WINDOWS,
  textArrayLiteral,
  writeRows,
  type Row,
  type TableDef,
} from './rollups';

/** What a fold reads of a result: the runs service's ROLLUP view of it (RunResultView), no more. */
export type FoldedResult = Pick<RunResult, 'testId' | 'file' | 'titlePath' | 'projectName' | 'outcome' | 'durationMs' | 'tags'>;

/**
 * A run's results: all at hand, or pulled page by page while the fold goes (the consumer's and the rebuild's way,
 * so a run of 80,000 results never sits in memory whole).
 */
export type ResultSource = FoldedResult[] | (() => AsyncIterable<FoldedResult[]>);

export interface FoldInput {
  run: RunSnapshot;
  results: ResultSource;
}

/** A run with all its results at hand (what the tests build). */
export interface RunWithResults extends FoldInput {
  results: RunResult[];
}

/**
 * A fold holds at most this many results at once: pages gather into a chunk of about this size, whose dimensions are
 * interned together and whose results are added to the in-memory rollup before the next chunk is read.
 */
export const FOLD_CHUNK_RESULTS = 5_000;
/** Rows (daily test rows) the in-memory rollup gathers before it is merged into the tables and emptied. */
export const FOLD_MERGE_ROWS = 10_000;

const pagesOf = (source: ResultSource): AsyncIterable<FoldedResult[]> | FoldedResult[][] =>
  typeof source === 'function' ? source() : [source];

/**
 * Each input's pages, input after input; `start` marks an input's first item (its page undefined when it has none).
 * A start is not an item of its own: `ahead` then asks for the next run's first page while this one's is handled.
 */
async function* pagesInOrder(inputs: FoldInput[]): AsyncGenerator<{ input: FoldInput; page?: FoldedResult[]; start: boolean }> {
  for (const input of inputs) {
    let start = true;
    for await (const page of pagesOf(input.results)) {
      yield { input, page, start };
      start = false;
    }
    if (start) yield { input, start };
  }
}

/**
 * Pages a fold asks for ahead of the one it adds up (pages of 1,000 results: ReadModel's page size). One was not
 * enough: the runs service then idled while this process merged its rollup into the tables, and the fold waited for
 * each page after that (a rebuild of 1,000,000 results, timed in the built service, waited 9.7 s for its pages with
 * one ahead, 7.5 s with four, 3.8 s with twelve).
 */
export const PAGES_AHEAD = 12;

/**
 * The items of `source` with up to `depth` more always asked for while the current one is handled: the runs service
 * reads the next pages while this process adds up the current one or merges its rollup into the tables (`depth`
 * pages more in memory).
 */
async function* ahead<T>(source: AsyncIterator<T>, depth = PAGES_AHEAD): AsyncGenerator<T> {
  const queued: Promise<IteratorResult<T>>[] = [];
  const ask = () => {
    const next = source.next();
    next.catch(() => undefined); // awaited in its turn; not an unhandled rejection meanwhile
    queued.push(next);
  };
  ask();
  for (;;) {
    while (queued.length <= depth) ask();
    const r = await queued.shift()!;
    if (r.done) return;
    yield r.value;
  }
}

export interface ProjectLock {
  key: number;
  asOf: number;
}

/** Creates the project row if needed and locks it for this transaction. */
export async function lockProject(c: Queryable, projectId: string, today: number): Promise<ProjectLock> {
  const { rows } = await c.query(
    `INSERT INTO projects (project_id, as_of_day) VALUES ($1, $2)
     ON CONFLICT (project_id) DO UPDATE SET project_id = EXCLUDED.project_id
     RETURNING project_key, as_of_day`,
    [projectId, today],
  );
  return { key: rows[0].project_key, asOf: rows[0].as_of_day };
}

/** The project's key without locking (created when missing). */
export async function projectKeyOf(c: Queryable, projectId: string, today: number): Promise<number> {
  const found = await c.query('SELECT project_key FROM projects WHERE project_id = $1', [projectId]);
  if (found.rows[0]) return found.rows[0].project_key;
  const { rows } = await c.query(
    `INSERT INTO projects (project_id, as_of_day) VALUES ($1, $2) ON CONFLICT (project_id) DO NOTHING RETURNING project_key`,
    [projectId, today],
  );
  if (rows[0]) return rows[0].project_key;
  return (await c.query('SELECT project_key FROM projects WHERE project_id = $1', [projectId])).rows[0].project_key;
}

const sortedUnique = (a: Iterable<string>) => [...new Set(a)].sort();

/** A run seen running (RUN_STARTED): its branch, environment, author and tags are filter values from now on. */
export async function recordRunning(c: Queryable, projectKey: number, run: RunSnapshot): Promise<void> {
  const start = run.startTime ? timestampDate(run.startTime) : new Date();
  await internDims(c, projectKey, runDims(run));
  await c.query(
    `INSERT INTO runs (run_id, project_key, status, day, start_time, branch, environment, author, tags, all_tags)
     VALUES ($1, $2, 'running', $3, $4, $5, $6, $7, $8, $8)
     ON CONFLICT (run_id) DO NOTHING`,
    [
      run.id,
      projectKey,
      dayOf(start),
      start,
      run.git?.branch ?? '',
      run.git?.environment ?? '',
      run.git?.commit?.author ?? '',
      sortedUnique(run.tags),
    ],
  );
}

/** Claims the runs not folded yet (their result count and tags are set by `setRunTotals` once read). */
async function markFolded(c: PoolClient, projectKey: number, inputs: FoldInput[]): Promise<Set<string>> {
  const rows = inputs.map((i) => {
    const start = i.run.startTime ? timestampDate(i.run.startTime) : new Date(0);
    return {
      id: i.run.id,
      status: runStatusOf(i.run),
      day: dayOf(start),
      start: start.getTime(),
      branch: i.run.git?.branch ?? '',
      env: i.run.git?.environment ?? '',
      author: i.run.git?.commit?.author ?? '',
      tags: textArrayLiteral(sortedUnique(i.run.tags)),
      allTags: textArrayLiteral(sortedUnique(i.run.tags)),
      results: 0,
    };
  });
  const { rows: fresh } = await c.query(
    `INSERT INTO runs (run_id, project_key, status, day, start_time, branch, environment, author, tags, all_tags, results, folded_at)
     SELECT x.id, $1, x.status, x.day, to_timestamp(x.start / 1000.0), x.branch, x.env, x.author, x.tags::text[], x.all_tags::text[],
            x.results, now()
       FROM unnest($2::text[], $3::text[], $4::int[], $5::float8[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                   $11::int[]) AS x(id, status, day, start, branch, env, author, tags, all_tags, results)
     ON CONFLICT (run_id) DO UPDATE SET project_key = EXCLUDED.project_key, status = EXCLUDED.status, day = EXCLUDED.day,
       start_time = EXCLUDED.start_time, branch = EXCLUDED.branch, environment = EXCLUDED.environment, author = EXCLUDED.author,
       tags = EXCLUDED.tags, all_tags = EXCLUDED.all_tags, results = EXCLUDED.results, snapshot = NULL,
       folded_at = EXCLUDED.folded_at
     WHERE runs.folded_at IS NULL
     RETURNING run_id`,
    [
      projectKey,
      rows.map((r) => r.id),
      rows.map((r) => r.status),
      rows.map((r) => r.day),
      rows.map((r) => r.start),
      rows.map((r) => r.branch),
      rows.map((r) => r.env),
      rows.map((r) => r.author),
      rows.map((r) => r.tags),
      rows.map((r) => r.allTags),
      rows.map((r) => r.results),
    ],
  );
  return new Set(fresh.map((r) => r.run_id as string));
}

interface RunTotals {
  results: number;
  allTags: Set<string>;
}

/** Each folded run's result count and the union of its and its results' tags. */
async function setRunTotals(c: PoolClient, totals: Map<string, RunTotals>): Promise<void> {
  const ids = [...totals.keys()];
  await c.query(
    `UPDATE runs SET results = x.results, all_tags = x.all_tags::text[]
       FROM unnest($1::text[], $2::int[], $3::text[]) AS x(id, results, all_tags) WHERE runs.run_id = x.id`,
    [ids, ids.map((id) => totals.get(id)!.results), ids.map((id) => textArrayLiteral(sortedUnique(totals.get(id)!.allTags)))],
  );
}

async function internFiles(c: PoolClient, projectKey: number, files: string[]): Promise<Map<string, number>> {
  await c.query(`INSERT INTO files (project_key, file) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`, [projectKey, files]);
  const { rows } = await c.query(`SELECT file_key, file FROM files WHERE project_key = $1 AND file = ANY($2::text[])`, [projectKey, files]);
  return new Map(rows.map((r) => [r.file as string, r.file_key as number]));
}

interface TestInfo {
  testId: string;
  fileKey: number;
  titlePath: string[];
  projectName: string;
  tags: string[];
  at: number;
}

async function internTests(c: PoolClient, projectKey: number, tests: TestInfo[], keys = true): Promise<Map<string, number>> {
  // Tags follow the latest result (by run start); the title path and browser project are part of the identity.
  await c.query(
    `INSERT INTO tests (project_key, test_id, file_key, title_path, title, project_name, tags, tags_at)
     SELECT $1, x.test_id, x.file_key, x.title_path::text[], array_to_string(x.title_path::text[], ' › '), x.project_name,
            x.tags::text[], to_timestamp(x.at / 1000.0)
       FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::float8[])
            AS x(test_id, file_key, title_path, project_name, tags, at)
     ON CONFLICT (project_key, test_id) DO UPDATE SET tags = EXCLUDED.tags, tags_at = EXCLUDED.tags_at
     WHERE EXCLUDED.tags_at > tests.tags_at`,
    [
      projectKey,
      tests.map((t) => t.testId),
      tests.map((t) => t.fileKey),
      tests.map((t) => textArrayLiteral(t.titlePath)),
      tests.map((t) => t.projectName),
      tests.map((t) => textArrayLiteral(t.tags)),
      tests.map((t) => t.at),
    ],
  );
  if (!keys) return new Map();
  const { rows } = await c.query(`SELECT test_key, test_id FROM tests WHERE project_key = $1 AND test_id = ANY($2::text[])`, [
    projectKey,
    tests.map((t) => t.testId),
  ]);
  return new Map(rows.map((r) => [r.test_id as string, r.test_key as number]));
}

export type DimKind = 'branch' | 'environment' | 'developer' | 'tag';

const runDims = (run: RunSnapshot): { kind: DimKind; value: string }[] => [
  { kind: 'branch', value: run.git?.branch ?? '' },
  { kind: 'environment', value: run.git?.environment ?? '' },
  { kind: 'developer', value: run.git?.commit?.author ?? '' },
  ...run.tags.map((value) => ({ kind: 'tag' as const, value })),
];

async function internDims(c: Queryable, projectKey: number, dims: { kind: DimKind; value: string }[]): Promise<Map<string, number>> {
  const kinds = dims.map((d) => d.kind);
  const values = dims.map((d) => d.value);
  await c.query(
    `INSERT INTO dims (project_key, kind, value) SELECT $1, x.kind, x.value FROM unnest($2::text[], $3::text[]) AS x(kind, value)
     ON CONFLICT DO NOTHING`,
    [projectKey, kinds, values],
  );
  const { rows } = await c.query(
    `SELECT d.dim_key, d.kind, d.value FROM unnest($2::text[], $3::text[]) AS x(kind, value)
       JOIN dims d ON d.project_key = $1 AND d.kind = x.kind AND d.value = x.value`,
    [projectKey, kinds, values],
  );
  return new Map(rows.map((r) => [`${r.kind}\u0000${r.value}`, r.dim_key as number]));
}

async function internTagsets(c: PoolClient, projectKey: number, literals: string[]): Promise<Map<string, number>> {
  await c.query(`INSERT INTO tagsets (project_key, tags) SELECT $1, t::text[] FROM unnest($2::text[]) AS t ON CONFLICT DO NOTHING`, [
    projectKey,
    literals,
  ]);
  const { rows } = await c.query(
    `SELECT s.tagset_key, x.lit FROM unnest($2::text[]) AS x(lit) JOIN tagsets s ON s.project_key = $1 AND s.tags = x.lit::text[]`,
    [projectKey, literals],
  );
  return new Map(rows.map((r) => [r.lit as string, r.tagset_key as number]));
}

/**
 * Adds `adds` to the rows of `def` (read, add in memory, write back), at most `slice` rows per read and write: the
 * rows read and the statement's parameters of one slice are in memory at a time, not those of all (a fold of a run
 * of 80,000 tests writes 30,000 window rows at once).
 */
async function mergeInto(c: PoolClient, def: TableDef, projectKey: number, adds: Row[], slice = FOLD_MERGE_ROWS): Promise<void> {
  for (let from = 0; from < adds.length; from += slice) {
    const part = adds.slice(from, from + slice);
    const existing = await readRowsByKey(
      c,
      def,
      projectKey,
      part.map((r) => r.key),
    );
    const changed: Row[] = [];
    const fresh: Row[] = [];
    for (const r of part) {
      const old = existing.get(keyString(r.key));
      if (old) changed.push({ key: r.key, agg: addAgg(old, r.agg) });
      else fresh.push(r);
    }
    await writeRows(c, def, changed);
    await insertRows(c, def, fresh);
  }
}

class Grouper {
  readonly map = new Map<string, { key: number[]; b: AggBuilder }>();
  at(key: number[]): AggBuilder {
    const k = keyString(key);
    let e = this.map.get(k);
    if (!e) {
      e = { key, b: new AggBuilder() };
      this.map.set(k, e);
    }
    return e.b;
  }
  rows(): Row[] {
    return [...this.map.values()].map((e) => ({ key: e.key, agg: e.b.finish() }));
  }
}

/** Sums rows into groups keyed by `keyOf` (a new Agg per group; the inputs are not changed). */
function regroup(rows: Row[], keyOf: (r: Row) => number[] | undefined): Row[] {
  const out = new Map<string, Row>();
  for (const r of rows) {
    const key = keyOf(r);
    if (!key) continue;
    const k = keyString(key);
    let g = out.get(k);
    if (!g) {
      g = { key, agg: emptyAgg() };
      out.set(k, g);
    }
    addAgg(g.agg, r.agg);
  }
  return [...out.values()];
}

export interface FoldOutcome {
  runs: number;
  results: number;
}

/**
 * Folds finished runs of ONE project in one transaction. Runs already folded are skipped, so folding the same
 * run again (a replayed event, a rebuild racing the consumer) changes nothing.
 */
export async function foldRuns(
  c: PoolClient,
  projectId: string,
  inputs: FoldInput[],
  now: Date,
  { chunkResults = FOLD_CHUNK_RESULTS, mergeRows = FOLD_MERGE_ROWS }: { chunkResults?: number; mergeRows?: number } = {},
): Promise<FoldOutcome> {
  const unique = [...new Map(inputs.map((i) => [i.run.id, i])).values()];
  if (unique.length === 0) return { runs: 0, results: 0 };
  const p = await lockProject(c, projectId, dayOf(now));
  const today = Math.max(dayOf(now), p.asOf);
  if (p.asOf < today) await advanceWindows(c, p.key, p.asOf, today);

  const fresh = await markFolded(c, p.key, unique);
  const todo = unique.filter((i) => fresh.has(i.run.id));
  if (todo.length === 0) return { runs: 0, results: 0 };

  // Pages gather into chunks of about `chunkResults` results, each added to the rollup in memory before the next
  // is read; the rollup is merged into the tables whenever it holds `mergeRows` rows, and at the end. Every rollup
  // adds up, so the merges sum to what one pass over all results gives.
  const chunk: Piece[] = [];
  let buffered = 0;
  let rollup = new Rollup();
  const tagsCounted = new Map<string, Set<number>>();
  const totals = new Map<string, RunTotals>();
  const keys = new Interned();
  const windows = new WindowAdds();
  const flush = async () => {
    if (chunk.length > 0) await addChunk(c, p.key, rollup, chunk, tagsCounted, keys);
    chunk.length = 0;
    buffered = 0;
    if (rollup.rows >= mergeRows) {
      await keys.flushTests(c, p.key);
      await mergeRollup(c, p.key, today, rollup, windows, mergeRows);
      rollup = new Rollup();
      collectAfterBulkWork(); // a large fold: its garbage so far, before the next part makes more
    }
  };
  for await (const { input: i, page, start } of ahead(pagesInOrder(todo))) {
    if (start) {
      totals.set(i.run.id, { results: 0, allTags: new Set(i.run.tags) });
      chunk.push({ run: i.run, results: [] }); // the run's own dimensions, results or not
    }
    if (!page) continue;
    const t = totals.get(i.run.id)!;
    t.results += page.length;
    for (const r of page) for (const tag of r.tags) t.allTags.add(tag);
    chunk.push({ run: i.run, results: page });
    buffered += page.length;
    if (buffered >= chunkResults) await flush();
  }
  await flush();
  await keys.flushTests(c, p.key);
  await mergeRollup(c, p.key, today, rollup, windows, mergeRows);
  await windows.flush(c, p.key);
  await setRunTotals(c, totals);

  const results = [...totals.values()].reduce((n, t) => n + t.results, 0);
  await c.query(
    `UPDATE projects SET runs_folded = runs_folded + $2, results_folded = results_folded + $3, last_folded_at = now(),
            version = version + 1
     WHERE project_key = $1`,
    [p.key, todo.length, results],
  );
  return { runs: todo.length, results };
}

/** Keys of files, dimensions, tag sets and tests interned by one fold (they stay valid under the project lock). */
class Interned {
  readonly files = new Map<string, number>();
  readonly dims = new Map<string, number>();
  readonly tagsets = new Map<string, number>();
  readonly tests = new Map<string, number>();
  /** The latest identity of tests interned already, for `flushTests`. */
  readonly testUpdates = new Map<string, TestInfo>();

  /** Interns the items whose id is not in `cache` yet (`intern` answers their keys by id). */
  async add<T>(cache: Map<string, number>, items: T[], id: (item: T) => string, intern: (missing: T[]) => Promise<Map<string, number>>) {
    const missing = items.filter((i) => !cache.has(id(i)));
    if (missing.length === 0) return;
    for (const [k, v] of await intern(missing)) cache.set(k, v);
  }

  /** Writes the latest tags of the tests met again since the last call. */
  async flushTests(c: PoolClient, projectKey: number): Promise<void> {
    if (this.testUpdates.size === 0) return;
    await internTests(c, projectKey, [...this.testUpdates.values()], false);
    this.testUpdates.clear();
  }
}

/** Results of one run within a chunk (a run's pages may spread over several chunks). */
interface Piece {
  run: RunSnapshot;
  results: FoldedResult[];
}

/** The daily rows a fold adds up in memory (keys are the tables' own: project, day, interned keys). */
class Rollup {
  readonly testDays = new Grouper();
  readonly fileDays = new Grouper();
  readonly projectDays = new Grouper();
  readonly tagDays = new Grouper();
  get rows(): number {
    return this.testDays.map.size;
  }
}

/**
 * Interns one chunk's dimensions and adds its results to `rollup`. `tagsCounted`: the tags each run was already
 * counted under (a tag counts a run once, whatever the chunks).
 */
async function addChunk(
  c: PoolClient,
  projectKey: number,
  rollup: Rollup,
  pieces: Piece[],
  tagsCounted: Map<string, Set<number>>,
  keys: Interned,
): Promise<void> {
  // ---- dimensions (each asked of the database once per fold: a fold of many runs meets the same ones again)
  const chunkFiles = sortedUnique(pieces.flatMap((i) => i.results.map((r) => r.file)));
  await keys.add(
    keys.files,
    chunkFiles,
    (f) => f,
    (missing) => internFiles(c, projectKey, missing),
  );
  const files = keys.files;
  // A result's tag set is its own tags and its run's: worked out once per run and distinct own tags, not per result.
  const tagsOf = pieces.map((i) => new TagSets(i.run.tags));
  const latest = new Map<string, { r: FoldedResult; at: number }>();
  const dims = new Map<string, { kind: DimKind; value: string }>();
  const addDim = (d: { kind: DimKind; value: string }) => dims.set(`${d.kind}\u0000${d.value}`, d);
  const tagsetOf = new Map<string, string[]>();
  pieces.forEach((i, n) => {
    const at = runStartOf(i.run);
    runDims(i.run).forEach(addDim);
    for (const r of i.results) {
      const prev = latest.get(r.testId);
      if (!prev || at >= prev.at) latest.set(r.testId, { r, at });
      const set = tagsOf[n]!.of(r.tags);
      if (set.isNew) {
        set.isNew = false;
        for (const t of r.tags) addDim({ kind: 'tag', value: t });
        tagsetOf.set(set.literal, set.tags);
      }
    }
  });
  await keys.add(
    keys.dims,
    [...dims.values()],
    (d) => `${d.kind}\u0000${d.value}`,
    (missing) => internDims(c, projectKey, missing),
  );
  // Tests met before in this fold: their latest tags are written with the next merge (one statement, not one per chunk).
  const newTests: TestInfo[] = [];
  for (const { r, at } of latest.values()) {
    const known = keys.tests.has(r.testId);
    if (known && (keys.testUpdates.get(r.testId)?.at ?? -Infinity) > at) continue;
    const t = {
      testId: r.testId,
      fileKey: files.get(r.file)!,
      titlePath: r.titlePath,
      projectName: r.projectName,
      tags: sortedUnique(r.tags),
      at,
    };
    if (known) keys.testUpdates.set(r.testId, t);
    else newTests.push(t);
  }
  await keys.add(
    keys.tests,
    newTests,
    (t) => t.testId,
    (missing) => internTests(c, projectKey, missing),
  );
  await keys.add(
    keys.tagsets,
    [...tagsetOf.keys()],
    (l) => l,
    (missing) => internTagsets(c, projectKey, missing),
  );
  const tests = keys.tests;
  const dimKeys = keys.dims;
  const dimKey = (kind: DimKind, value: string) => dimKeys.get(`${kind}\u0000${value}`)!;

  // ---- aggregate the chunk's results
  const { testDays, fileDays, projectDays, tagDays } = rollup;
  pieces.forEach((i, n) => {
    const at = runStartOf(i.run);
    const day = dayOf(at);
    const branch = dimKey('branch', i.run.git?.branch ?? '');
    const env = dimKey('environment', i.run.git?.environment ?? '');
    let counted = tagsCounted.get(i.run.id);
    if (!counted) tagsCounted.set(i.run.id, (counted = new Set()));
    const runTags = new Set<number>();
    let project: AggBuilder | undefined; // a run without results adds no row
    const byFile = new Map<string, AggBuilder>();
    const sets = tagsOf[n]!;
    for (const r of i.results) {
      const cls = classOf(testOutcome.fromProto(r.outcome));
      const ms = Number(r.durationMs);
      const bucket = bucketOf(ms);
      const set = sets.of(r.tags);
      if (set.keys === undefined) {
        set.tagset = keys.tagsets.get(set.literal)!;
        set.keys = set.tags.map((t) => dimKey('tag', t));
      }
      testDays.at([projectKey, day, tests.get(r.testId)!, branch, env, set.tagset!]).add(cls, ms, bucket, at);
      let file = byFile.get(r.file);
      if (!file) byFile.set(r.file, (file = fileDays.at([projectKey, day, files.get(r.file)!])));
      file.add(cls, ms, bucket, at);
      (project ??= projectDays.at([projectKey, day, branch, env])).add(cls, ms, bucket, at);
      for (const tagKey of set.keys) {
        runTags.add(tagKey);
        tagDays.at([projectKey, day, tagKey]).add(cls, ms, bucket, at);
      }
    }
    for (const tagKey of runTags)
      if (!counted.has(tagKey)) {
        counted.add(tagKey);
        tagDays.at([projectKey, day, tagKey]).agg.runs++;
      }
  });
}

const runStartOf = (run: RunSnapshot) => (run.startTime ? timestampDate(run.startTime).getTime() : 0);

/** A result's tag set (its own tags and its run's, sorted and unique), with its keys once interned. */
interface TagSet {
  tags: string[];
  literal: string;
  isNew: boolean;
  tagset?: number;
  keys?: number[];
}

/** The tag sets of one run's results, by the results' own tags (most results share a few, often none). */
class TagSets {
  private readonly byOwn = new Map<string, TagSet>();
  constructor(private readonly runTags: string[]) {}

  of(own: string[]): TagSet {
    const id = own.length === 0 ? '' : `\u0001${own.join('\u0000')}`;
    let set = this.byOwn.get(id);
    if (!set) {
      const tags = sortedUnique([...own, ...this.runTags]);
      this.byOwn.set(id, (set = { tags, literal: textArrayLiteral(tags), isNew: true }));
    }
    return set;
  }
}

/** Merges the rollup's rows into the daily tables and into the rolling windows that contain their day. */
/**
 * Additions to the rolling windows gathered over a fold's merges and written together (a rebuild's fold of 50 runs
 * rewrote each test's three window rows after each of its merges): written once they hold the fold's `mergeRows`
 * rows, and at its end.
 */
class WindowAdds {
  private readonly byTable = new Map<TableDef, Map<string, Row>>();
  size = 0;

  add(def: TableDef, rows: Row[]): void {
    let m = this.byTable.get(def);
    if (!m) this.byTable.set(def, (m = new Map()));
    for (const r of rows) {
      const k = keyString(r.key);
      const g = m.get(k);
      if (g) addAgg(g.agg, r.agg);
      else {
        m.set(k, r);
        this.size++;
      }
    }
  }

  async flush(c: PoolClient, projectKey: number, slice?: number): Promise<void> {
    for (const [def, m] of this.byTable) await mergeInto(c, def, projectKey, [...m.values()], slice);
    this.byTable.clear();
    this.size = 0;
  }
}

async function mergeRollup(
  c: PoolClient,
  projectKey: number,
  today: number,
  rollup: Rollup,
  windows: WindowAdds,
  maxWindowRows: number,
): Promise<void> {
  const { testDays, fileDays, projectDays, tagDays } = rollup;
  const testRows = testDays.rows();
  const fileRows = fileDays.rows();
  const projectRows = projectDays.rows();

  // ---- windows first (regroup reads the new rows; mergeInto below may write them as they are)
  for (const w of WINDOW_DAYS) {
    const inWindow = (day: number) => day > today - w && day <= today;
    windows.add(
      TEST_WINDOWS,
      regroup(testRows, (r) => (inWindow(r.key[1]!) ? [projectKey, w, r.key[2]!] : undefined)),
    );
    windows.add(
      FILE_WINDOWS,
      regroup(fileRows, (r) => (inWindow(r.key[1]!) ? [projectKey, w, r.key[2]!] : undefined)),
    );
    windows.add(
      PROJECT_WINDOWS,
      regroup(projectRows, (r) => (inWindow(r.key[1]!) ? [projectKey, w] : undefined)),
    );
  }
  await mergeInto(c, TEST_DAYS, projectKey, testRows);
  await mergeInto(c, FILE_DAYS, projectKey, fileRows);
  await mergeInto(c, PROJECT_DAYS, projectKey, projectRows);
  await addTagRows(c, tagDays.rows());
  if (windows.size >= maxWindowRows) {
    // The garbage of the chunks and of the daily merges first: the window rows and those they are added to are
    // the most a fold holds at once (ingest-memory's peak was at this point).
    collectAfterBulkWork();
    await windows.flush(c, projectKey, maxWindowRows);
  }
}

interface WindowEntity {
  day: TableDef;
  win: TableDef;
  /** Entity column of the daily table (and the window), or none for the project row. */
  col?: 'test_key' | 'file_key';
}

const ENTITIES: WindowEntity[] = [
  { day: TEST_DAYS, win: TEST_WINDOWS, col: 'test_key' },
  { day: FILE_DAYS, win: FILE_WINDOWS, col: 'file_key' },
  { day: PROJECT_DAYS, win: PROJECT_WINDOWS },
];

/** Sum of the daily rows of `e` in [from, until], per entity (0 for the project row). */
async function daySums(c: Queryable, e: WindowEntity, projectKey: number, from: number, until: number): Promise<Map<number, Agg>> {
  const out = new Map<number, Agg>();
  if (from > until) return out;
  const cols = ['executions', 'passed', 'failed', 'flaky', 'skipped', 'dur_sum', 'dur_min', 'dur_max', 'h_idx', 'h_cnt', ...e.day.last];
  const { rows } = await c.query(
    `SELECT ${e.col ?? '0'} AS entity, ${cols.join(', ')} FROM ${e.day.table} WHERE project_key = $1 AND day BETWEEN $2 AND $3`,
    [projectKey, from, until],
  );
  for (const r of rows) {
    const agg = out.get(r.entity) ?? emptyAgg();
    out.set(r.entity, addAgg(agg, { ...emptyAgg(), ...pick(e.day, r) }));
  }
  return out;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a pg row
function pick(def: TableDef, r: any): Partial<Agg> {
  return {
    executions: Number(r.executions),
    passed: Number(r.passed),
    failed: Number(r.failed),
    flaky: Number(r.flaky),
    skipped: Number(r.skipped),
    durSum: Number(r.dur_sum),
    durMin: r.dur_min === null ? null : Number(r.dur_min),
    durMax: r.dur_max === null ? null : Number(r.dur_max),
    hist: { idx: r.h_idx, cnt: r.h_cnt },
    lastRunAt: def.last.includes('last_run_at') && r.last_run_at ? r.last_run_at.getTime() : null,
    lastFailedAt: def.last.includes('last_failed_at') && r.last_failed_at ? r.last_failed_at.getTime() : null,
    lastFlakyAt: def.last.includes('last_flaky_at') && r.last_flaky_at ? r.last_flaky_at.getTime() : null,
  };
}

/**
 * Moves every rolling window of a project from `asOf` to `today` (> asOf). Invariant kept: the window of w days
 * equals the sum of the daily rows of the w days ending with as_of_day.
 */
export async function advanceWindows(c: PoolClient, projectKey: number, asOf: number, today: number): Promise<void> {
  for (const w of WINDOW_DAYS) {
    const oldFrom = asOf - w + 1;
    const newFrom = today - w + 1;
    const removedUntil = Math.min(asOf, newFrom - 1);
    const addedFrom = Math.max(asOf + 1, newFrom);
    const cutoff = dayStart(newFrom).getTime();
    for (const e of ENTITIES) {
      const removed = await daySums(c, e, projectKey, oldFrom, removedUntil);
      const added = await daySums(c, e, projectKey, addedFrom, today);
      const entities = [...new Set([...removed.keys(), ...added.keys()])];
      if (entities.length === 0) continue;
      const keyOf = (entity: number) => (e.col ? [projectKey, w, entity] : [projectKey, w]);
      const existing = await readRows(c, e.win, projectKey, e.col ? [[w], entities] : [[w]]);
      const write: Row[] = [];
      const drop: number[][] = [];
      const extremes: number[] = [];
      for (const entity of entities) {
        const cur = existing.get(keyString(keyOf(entity))) ?? emptyAgg();
        const rem = removed.get(entity);
        const add = added.get(entity);
        const next: Agg = {
          executions: cur.executions + (add?.executions ?? 0) - (rem?.executions ?? 0),
          passed: cur.passed + (add?.passed ?? 0) - (rem?.passed ?? 0),
          failed: cur.failed + (add?.failed ?? 0) - (rem?.failed ?? 0),
          flaky: cur.flaky + (add?.flaky ?? 0) - (rem?.flaky ?? 0),
          skipped: cur.skipped + (add?.skipped ?? 0) - (rem?.skipped ?? 0),
          durSum: cur.durSum + (add?.durSum ?? 0) - (rem?.durSum ?? 0),
          durMin: cur.durMin,
          durMax: cur.durMax,
          hist: mergeHist(add ? mergeHist(cur.hist, add.hist) : cur.hist, rem?.hist ?? { idx: [], cnt: [] }, -1),
          // The latest timestamp of a window either stays in it or (when its day left) had no later one.
          lastRunAt: cur.lastRunAt !== null && cur.lastRunAt >= cutoff ? cur.lastRunAt : null,
          lastFailedAt: cur.lastFailedAt !== null && cur.lastFailedAt >= cutoff ? cur.lastFailedAt : null,
          lastFlakyAt: cur.lastFlakyAt !== null && cur.lastFlakyAt >= cutoff ? cur.lastFlakyAt : null,
          runs: 0,
        };
        if (add) {
          next.durMin = minOf(next.durMin, add.durMin);
          next.durMax = maxOf(next.durMax, add.durMax);
          next.lastRunAt = maxOf(next.lastRunAt, add.lastRunAt);
          next.lastFailedAt = maxOf(next.lastFailedAt, add.lastFailedAt);
          next.lastFlakyAt = maxOf(next.lastFlakyAt, add.lastFlakyAt);
        }
        if (next.executions <= 0) {
          if (existing.has(keyString(keyOf(entity)))) drop.push(keyOf(entity));
          continue;
        }
        // An extreme that left with the removed days is recomputed from the daily rows.
        const remMin = rem?.durMin ?? null;
        const remMax = rem?.durMax ?? null;
        const lostMin = remMin !== null && (cur.durMin === null || remMin <= cur.durMin);
        const lostMax = remMax !== null && (cur.durMax === null || remMax >= cur.durMax);
        if (lostMin || lostMax) extremes.push(entity);
        write.push({ key: keyOf(entity), agg: next });
      }
      await writeRows(c, e.win, write);
      await deleteRows(c, e.win, drop);
      if (extremes.length > 0) await recomputeExtremes(c, e, projectKey, w, newFrom, today, extremes);
    }
  }
  await c.query('UPDATE projects SET as_of_day = $2, version = version + 1 WHERE project_key = $1', [projectKey, today]);
}

async function recomputeExtremes(
  c: PoolClient,
  e: WindowEntity,
  projectKey: number,
  w: number,
  from: number,
  until: number,
  entities: number[],
): Promise<void> {
  const entityCol = e.col ?? null;
  await c.query(
    `UPDATE ${e.win.table} w SET dur_min = s.mn, dur_max = s.mx
       FROM (SELECT ${entityCol ?? '0'} AS entity, min(dur_min) AS mn, max(dur_max) AS mx FROM ${e.day.table}
              WHERE project_key = $1 AND day BETWEEN $2 AND $3 ${entityCol ? `AND ${entityCol} = ANY($5::int[])` : ''}
              GROUP BY 1) s
      WHERE w.project_key = $1 AND w.window_days = $4 ${entityCol ? `AND w.${entityCol} = s.entity` : ''}`,
    entityCol ? [projectKey, from, until, w, entities] : [projectKey, from, until, w],
  );
}
