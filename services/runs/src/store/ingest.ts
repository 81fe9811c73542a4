/**
 * Bulk writes of normalized tests into a run, a chunk (at most CHUNK_SIZE tests) at a time, inside the caller's
 * transaction. Ids are deterministic (see domain/identity), so a re-sent batch lands on the same rows.
 *
 * A result new to the run — nearly every result of a report — is computed whole here (status, outcome, duration
 * and error from its attempts, as Playwright computes them) and COPYed once with its attempts (pg-copy-streams,
 * COPY's text format): Postgres parses each value once and writes each row once, with no JSON to unpack and no
 * second pass over the rows. A result the run already has (a re-sent batch, a retry reported in a later batch, a
 * test repeated in one report: a new run's tests are encoded one by one as they come) is merged in SQL, after its
 * chunk's COPY: it is upserted, its attempts are idempotent per (test, retry), and its status/outcome is recomputed
 * from all its attempts.
 *
 * Rows shared by the project (tests, error groups) are only ever inserted, never updated, here: an update would
 * lock a row every concurrent upload of the project touches until this (possibly long) transaction ends. They can be
 * committed apart (`SharedRowsSink`): an insert waits for any other transaction that inserted the same row, so two
 * first uploads of the same new tests or failures would otherwise run one after the other (and two that met the same
 * new rows in opposite orders, in different chunks, would deadlock).
 */
import { AppError } from '@assay/errors';
import { copyIn, copyNumber, CopyData, type PoolClient, type Queryable } from '@assay/db';
import type { AttemptStatusName } from '@assay/contracts/runs/values';
import type { NormAttempt, NormTest } from '../ingest/normalize';
import { errorGroupIdOf, fingerprintOf, fullTitleOf, resultIdOf, testIdOf } from '../domain/identity';
import { manualCaseRefs, type CompiledRule } from '../domain/rules';

export const CHUNK_SIZE = 1000;

export interface IngestOutcome {
  /** Results (tests of this run) that did not exist before: what usage counts. */
  newResults: number;
  tests: number;
  /** Manual case links queued (pending) by this write. */
  linksQueued: number;
}

// ---- COPY's text format --------------------------------------------------------------------------------------

const SPECIAL = /[\\\n\r\t]/;
const SPECIAL_ALL = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A text the database cannot store refuses the report as the database refused it when these values travelled
 * as JSON: a NUL character (SQLSTATE 22P05) or a lone surrogate (22P02), 400 VALIDATION_ERROR at `body`.
 */
function unstorable(message: string): AppError {
  return new AppError('VALIDATION_ERROR', `The request is invalid: ${message}`, { details: [{ path: 'body', message }] });
}
function storable(v: string): string {
  if (v.includes('\u0000')) throw unstorable('a text contains a character that cannot be stored');
  if (!v.isWellFormed()) throw unstorable('a value has the wrong format');
  return v;
}

/** A text field: backslash, newline, carriage return and tab escaped; null is `\N`. */
function text(v: string | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  storable(v);
  return SPECIAL.test(v) ? v.replace(SPECIAL_ALL, (c) => ESCAPED[c]!) : v;
}
/** A jsonb field (JSON escapes NUL and lone surrogates itself; the database refuses them as before). */
const json = (v: unknown) => {
  const s = JSON.stringify(v);
  return s.includes('\\') ? s.replace(/\\/g, '\\\\') : s;
};
/** A text[] literal (`{"a","b"}`), as one text field. */
const textArray = (a: readonly string[]) => text(arrayLiteral(a));
const arrayLiteral = (a: readonly string[]) => `{${a.map((s) => `"${storable(s).replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

/**
 * Encoding a chunk takes the only thread ~20–25 ms: it gives way every SLICE tests (about a quarter of a millisecond),
 * so the replies of the chunk being written meanwhile are answered at once: the database waits for its next statement
 * until they are. Every 100 tests, a 50,000-test upload took 10–15 % longer (`make up`, A/B).
 */
const SLICE = 10;
/** Tests whose COPY lines are turned into bytes at once (`CopyData.seal`). */
const SEAL_EVERY = 100;
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

// ---- what a chunk writes ------------------------------------------------------------------------------------

/**
 * A result id (24 hex digits) as a small integer: its first 30 bits. Two results of a run may share one (about one
 * pair in a report of 50,000 tests); the writer then takes the second for one it wrote already and merges it in SQL,
 * which inserts it (counted as new) and stores the same row a COPY would have.
 */
const keyOf = (id: string) => Number.parseInt(id.slice(0, 8), 16) & 0x3fffffff;

/** One result of a chunk: the first occurrence of its test gives the fields, later ones add attempts. */
interface Entry {
  id: string;
  testId: string;
  seq: number;
  test: NormTest;
  quarantined: boolean;
  tags: string[];
  errorGroupId: string | null;
  /** One per retry index (the first given). */
  attempts: NormAttempt[];
}

/** Adds the attempts of `from` whose retry index `into` has not (a retry given twice counts once: the first). */
function addAttempts(into: NormAttempt[], from: readonly NormAttempt[]): void {
  if (into.length === 0 && from.length === 1) {
    into.push(from[0]!);
    return;
  }
  const retries = new Set(into.map((a) => a.retry));
  for (const a of from) {
    if (retries.has(a.retry)) continue;
    retries.add(a.retry);
    into.push(a);
  }
}

/** The fields a result takes from its attempts (status of the last, outcome as Playwright computes it). */
function aggregate(expected: AttemptStatusName, attempts: NormAttempt[]) {
  if (attempts.length === 0)
    return { status: 'skipped', outcome: 'skipped', durationMs: 0, startedAt: null, errorMessage: null as string | null };
  let last = attempts[0]!;
  let lastFailing: NormAttempt | undefined;
  let considered = 0;
  let nonSkipped = 0;
  let failures = 0;
  let durationMs = 0;
  let startedAt: string | null = null;
  let startedMs = Infinity;
  for (const a of attempts) {
    if (a.retry > last.retry) last = a;
    if (a.errors.length > 0 && (!lastFailing || a.retry > lastFailing.retry)) lastFailing = a;
    // Interrupted attempts are ignored by the outcome.
    if (a.status !== 'interrupted') {
      considered++;
      if (a.status !== 'skipped') nonSkipped++;
      if (a.status !== expected) failures++;
    }
    durationMs += a.durationMs;
    if (a.startTime !== undefined) {
      const ms = Date.parse(a.startTime);
      if (ms < startedMs) [startedMs, startedAt] = [ms, a.startTime];
    }
  }
  const outcome = nonSkipped === 0 ? 'skipped' : failures === 0 ? 'expected' : failures === considered ? 'unexpected' : 'flaky';
  return { status: last.status, outcome, durationMs, startedAt, errorMessage: lastFailing ? lastFailing.errors[0]!.message : null };
}

const RESULT_COLUMNS = `id, run_id, project_id, test_id, seq, file, title_path, project_name, expected_status, status, outcome,
  duration_ms, attempt_count, quarantined, tags, annotations, location, error_message, error_group_id, started_at, shard`;
const ATTEMPT_COLUMNS = `result_id, retry, run_id, status, duration_ms, started_at, worker_index, errors, steps, stdout, stderr, attachments`;

function attemptLine(resultId: string, runId: string, a: NormAttempt): string {
  return [
    text(resultId),
    copyNumber(a.retry),
    text(runId),
    text(a.status),
    copyNumber(a.durationMs),
    text(a.startTime),
    copyNumber(a.workerIndex),
    json(a.errors),
    json(a.steps),
    json(a.stdout),
    json(a.stderr),
    json(a.attachments),
  ].join('\t');
}

function resultLine(e: Entry, run: { id: string; projectId: string }): string {
  const t = e.test;
  const agg = aggregate(t.expectedStatus, e.attempts);
  return [
    text(e.id),
    text(run.id),
    text(run.projectId),
    text(e.testId),
    copyNumber(e.seq),
    text(t.file),
    textArray(t.titlePath),
    text(t.projectName),
    text(t.expectedStatus),
    text(agg.status),
    text(agg.outcome),
    copyNumber(agg.durationMs),
    copyNumber(e.attempts.length),
    e.quarantined ? 't' : 'f',
    textArray(e.tags),
    json(t.annotations),
    t.location === undefined ? '\\N' : json(t.location),
    text(agg.errorMessage),
    text(e.errorGroupId),
    text(agg.startedAt),
    copyNumber(t.shard),
  ].join('\t');
}

/** Test identities as `writeTestIdentities` takes them (columns of the `tests` rows). */
export interface TestRows {
  ids: string[];
  files: string[];
  titlePaths: string[];
  names: string[];
  titles: string[];
}

/** An error group as `writeErrorGroups` takes it (its id derives from the project and the fingerprint). */
export interface ErrorGroupRow {
  id: string;
  fingerprint: string;
  message: string;
}

/** A chunk's rows shared by the project: its test identities and the error groups of its failures. */
export interface SharedRows {
  tests: TestRows;
  groups: ErrorGroupRow[];
}

/**
 * Where a writer's shared rows go: by default the writer's own transaction; an ingestion commits them apart, while
 * its transaction writes the batch's results and before it ends (identities and groups without results are what a
 * deleted run leaves: nothing reads them as half-written).
 */
export type SharedRowsSink = (projectId: string, rows: SharedRows) => Promise<void>;

/** Writes a chunk's shared rows (`known`: the test identities seen committed, when each call commits on its own). */
export async function writeSharedRows(db: Queryable, projectId: string, rows: SharedRows, known?: KnownTests): Promise<void> {
  await writeTestIdentities(db, projectId, rows.tests, known);
  await writeErrorGroups(db, projectId, rows.groups);
}

/**
 * Inserts the error groups the project does not have yet (never updated: see above), in id order, so that two
 * statements meeting the same new groups wait for each other in one order only (a deadlock otherwise). No conflict
 * target: both the id and (project_id, fingerprint) are unique, and naming one left the other to a plain unique
 * check, which failed the second of two concurrent inserts of a new group with a duplicate id (a 500) instead of
 * skipping its row.
 */
export async function writeErrorGroups(db: Queryable, projectId: string, groups: ErrorGroupRow[]): Promise<void> {
  if (groups.length === 0) return;
  await db.query(
    `INSERT INTO error_groups (id, project_id, fingerprint, message)
     SELECT x.id, $2, x.fingerprint, x.message
       FROM unnest($1::text[], $3::text[], $4::text[]) AS x(id, fingerprint, message)
      ORDER BY x.id
     ON CONFLICT DO NOTHING`,
    [groups.map((g) => g.id), projectId, groups.map((g) => g.fingerprint), groups.map((g) => g.message)],
  );
}

/**
 * Test identities this process has seen committed, at most `max` (the oldest forgotten first): an upload of tests the
 * project has already (every CI run after the first) skips writing them again, a statement a chunk that cost the
 * database 2–4 ms (a 10,000-test upload: about 4 % of its time). Identities are never updated or deleted, so one seen
 * committed stays true. About 64 bytes each.
 */
export class KnownTests {
  private readonly ids = new Set<string>();

  constructor(private readonly max = 50_000) {}

  /** The rows of `tests` not seen committed. */
  unknown(tests: TestRows): TestRows {
    const keep: number[] = [];
    for (const [i, id] of tests.ids.entries()) if (!this.ids.has(id)) keep.push(i);
    if (keep.length === tests.ids.length) return tests;
    const pick = (column: string[]) => keep.map((i) => column[i]!);
    return {
      ids: pick(tests.ids),
      files: pick(tests.files),
      titlePaths: pick(tests.titlePaths),
      names: pick(tests.names),
      titles: pick(tests.titles),
    };
  }

  /** Remembers `ids`, committed. */
  add(ids: readonly string[]): void {
    for (const id of ids) {
      if (this.ids.has(id)) continue;
      if (this.ids.size >= this.max) this.ids.delete(this.ids.values().next().value!);
      // A copy of its own: an id is a slice of its 64-digit hash, which V8 would keep alive with it.
      this.ids.add(Buffer.from(id, 'latin1').toString('latin1'));
    }
  }

  get size(): number {
    return this.ids.size;
  }
}

/**
 * Inserts the test identities the project does not have yet (never updated: see above), in id order (as error groups,
 * below: two uploads of the same new tests in another order would otherwise deadlock). With `known` (only when each
 * call commits on its own), those seen committed before are left out, and those written are remembered.
 */
export async function writeTestIdentities(db: Queryable, projectId: string, all: TestRows, known?: KnownTests): Promise<void> {
  const tests = known ? known.unknown(all) : all;
  if (tests.ids.length === 0) return;
  await db.query(
    `INSERT INTO tests (id, project_id, file, title_path, project_name, full_title)
     SELECT x.id, $2, x.file, x.title_path::text[], x.project_name, x.full_title
       FROM unnest($1::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS x(id, file, title_path, project_name, full_title)
      ORDER BY x.id
     ON CONFLICT (id) DO NOTHING`,
    [tests.ids, projectId, tests.files, tests.titlePaths, tests.names, tests.titles],
  );
  known?.add(tests.ids);
}

/** A chunk's tests as the statements take them, encoded in advance (Node's work: ids, rules, aggregates, COPY text). */
interface Batch {
  /** Tests handed over into it. */
  size: number;
  groups: ErrorGroupRow[];
  links: { test_id: string; case_ref: string; full_title: string }[];
  tests: TestRows;
  /** Results new to the run and their attempts, as COPY data (bytes: the tests they came from are dropped at once). */
  fresh: { count: number; results: CopyData; attempts: CopyData };
  /** Results the run already has (merged in SQL). */
  merged: Entry[];
}

/** A batch being encoded, a result at a time. */
class Draft {
  /** Tests handed over into it (counted by `TestWriter.add`). */
  size = 0;
  private entries = 0;
  readonly groups = new Map<string, ErrorGroupRow>();
  readonly links: Batch['links'] = [];
  private readonly tests: TestRows = { ids: [], files: [], titlePaths: [], names: [], titles: [] };
  private readonly fresh: Batch['fresh'] = { count: 0, results: new CopyData(), attempts: new CopyData() };
  private readonly merged: Entry[] = [];

  constructor(private readonly run: { id: string; projectId: string }) {}

  /** Adds a result: encoded for the COPY when it is `fresh`, else kept to be merged in SQL. */
  add(e: Entry, fresh: boolean): void {
    if (this.entries > 0 && this.entries % SEAL_EVERY === 0) {
      this.fresh.results.seal();
      this.fresh.attempts.seal();
    }
    this.entries++;
    this.tests.ids.push(e.testId);
    this.tests.files.push(storable(e.test.file));
    this.tests.titlePaths.push(arrayLiteral(e.test.titlePath));
    this.tests.names.push(storable(e.test.projectName));
    this.tests.titles.push(fullTitleOf(e.test.titlePath));
    if (!fresh) {
      this.merged.push(e);
      return;
    }
    this.fresh.count++;
    this.fresh.results.add(resultLine(e, this.run));
    for (const a of e.attempts) this.fresh.attempts.add(attemptLine(e.id, this.run.id, a));
  }

  batch(): Batch {
    this.fresh.results.seal();
    this.fresh.attempts.seal();
    const { size, links, tests, fresh, merged } = this;
    return { size, groups: [...this.groups.values()], links, tests, fresh, merged };
  }
}

/** Tests written by one call, encoded in advance (see `TestWriter.add`). */
export interface Prepared {
  tests: number;
  batches: Batch[];
}

const prepared = (batches: Batch[]): Prepared => ({ tests: batches.reduce((n, b) => n + b.size, 0), batches });

/**
 * The writes of one run inside one transaction, a chunk at a time; each call numbers its tests from the run's
 * highest `seq` on, one number per test handed over. `newRun`: the run was created by this transaction, so it holds
 * only the results this writer wrote: its tests are encoded as they are handed over (`add`, then `end`), a chunk
 * while the previous one is written (`send`). Any other run is asked which results it has (`write`).
 *
 * A new run's tests are encoded at once, not gathered into a chunk first: a test's parsed report then lives only
 * until its lines are written, not for a whole chunk. Gathered, they outlived the young generation's collections and
 * were copied, then promoted, about 30 MB a 10,000-test report, which full collections had to free again.
 */
export class TestWriter {
  /** The highest `seq` of the run's results (-1: none), read once, then kept as results are written. */
  private maxSeq: number | undefined;
  /**
   * Results this writer has written or will write (kept only for a new run), by `keyOf`: a small integer per result,
   * so a report of 80,000 tests keeps ~1 MB here rather than ~6 MB of id strings (a live set that large raised the
   * heap V8 lets grow before collecting by several times as much).
   */
  private readonly written = new Set<number>();
  /** A new run's chunk being encoded. */
  private draft: Draft;

  constructor(
    private readonly client: PoolClient,
    private readonly run: { id: string; projectId: string },
    private readonly rules: CompiledRule[],
    private readonly newRun: boolean,
    private readonly shared: SharedRowsSink = (projectId, rows) => writeSharedRows(client, projectId, rows),
  ) {
    if (newRun) this.maxSeq = -1;
    this.draft = new Draft(run);
  }

  /**
   * Encodes `tests` of a new run (no database work; a text the database cannot store throws here) and answers the
   * chunks they completed, for `send`; the rest waits for more tests or for `end`.
   */
  async add(tests: NormTest[]): Promise<Prepared> {
    if (!this.newRun) throw new Error('only the tests of a run this transaction created are encoded as they come');
    const done: Batch[] = [];
    for (const [i, t] of tests.entries()) {
      if (i % SLICE === SLICE - 1) await breathe();
      const d = this.draft;
      const e = this.entryOf(t, this.maxSeq! + 1, d);
      this.maxSeq = e.seq;
      d.size++;
      const key = keyOf(e.id);
      // A test repeated in the report (or another result's key) is merged in SQL, after the COPY of its chunk.
      d.add(e, !this.written.has(key));
      this.written.add(key);
      if (d.size === CHUNK_SIZE) {
        done.push(d.batch());
        this.draft = new Draft(this.run);
      }
    }
    return prepared(done);
  }

  /** The last chunk of a new run's tests (what `add` has not answered yet). */
  end(): Prepared {
    const d = this.draft;
    this.draft = new Draft(this.run);
    return prepared(d.size > 0 ? [d.batch()] : []);
  }

  /** Writes what `add` or `end` encoded. */
  async send(prepared: Prepared): Promise<IngestOutcome> {
    const outcome: IngestOutcome = { newResults: 0, tests: prepared.tests, linksQueued: 0 };
    for (const batch of prepared.batches) {
      const out = await this.sendBatch(batch);
      outcome.newResults += out.newResults;
      outcome.linksQueued += out.linksQueued;
    }
    return outcome;
  }

  /** Encodes and writes `tests` of a run this transaction did not create, chunk by chunk, asking which results it has. */
  async write(tests: NormTest[]): Promise<IngestOutcome> {
    if (this.newRun) throw new Error("a new run's tests are encoded as they come: add, end, then send");
    if (this.maxSeq === undefined) {
      const { rows } = await this.client.query('SELECT coalesce(max(seq), -1)::int AS max FROM results WHERE run_id = $1', [this.run.id]);
      this.maxSeq = rows[0].max as number;
    }
    let seq = this.maxSeq + 1;
    const outcome: IngestOutcome = { newResults: 0, tests: tests.length, linksQueued: 0 };
    for (let start = 0; start < tests.length; start += CHUNK_SIZE) {
      const chunk = tests.slice(start, start + CHUNK_SIZE);
      const draft = new Draft(this.run);
      const entries = await this.collect(chunk, seq, draft);
      seq += chunk.length;
      const { rows } = await this.client.query<{ id: string }>('SELECT id FROM results WHERE id = ANY($1::text[])', [
        entries.map((e) => e.id),
      ]);
      const existing = new Set(rows.map((r) => r.id));
      for (const [i, e] of entries.entries()) {
        if (i % SLICE === SLICE - 1) await breathe();
        const fresh = !existing.has(e.id);
        draft.add(e, fresh);
        if (fresh) this.maxSeq = Math.max(this.maxSeq, e.seq);
      }
      const out = await this.sendBatch(draft.batch());
      outcome.newResults += out.newResults;
      outcome.linksQueued += out.linksQueued;
    }
    return outcome;
  }

  /**
   * A test as a result of the run numbered `seq` (ids, rules, the attempts it counts); its error group and manual case
   * links go to `d`.
   */
  private entryOf(t: NormTest, seq: number, d: Draft): Entry {
    const { run } = this;
    const testId = testIdOf(run.projectId, t.file, t.titlePath, t.projectName);
    const fullTitle = fullTitleOf(t.titlePath);
    // The error of the last attempt that failed names the group.
    let failing: NormAttempt | undefined;
    for (const a of t.attempts) if (a.errors.length > 0 && (!failing || a.retry > failing.retry)) failing = a;
    const message = failing?.errors[0]?.message;
    let errorGroupId: string | null = null;
    if (message) {
      const fingerprint = fingerprintOf(message);
      errorGroupId = errorGroupIdOf(run.projectId, fingerprint);
      d.groups.set(errorGroupId, { id: errorGroupId, fingerprint, message: message.split('\n')[0]!.slice(0, 1000) });
    }
    let quarantined = false;
    const tags = new Set(t.tags);
    for (const r of this.rules) {
      if (!r.matches({ file: t.file, fullTitle, tags: t.tags })) continue;
      if (r.rule.operations.includes('quarantine')) quarantined = true;
      if (r.rule.operations.includes('tag') && r.rule.tag) tags.add(r.rule.tag);
    }
    for (const ref of manualCaseRefs(t.annotations, t.tags)) d.links.push({ test_id: testId, case_ref: ref, full_title: fullTitle });
    const attempts: NormAttempt[] = [];
    addAttempts(attempts, t.attempts);
    return { id: resultIdOf(run.id, testId), testId, seq, test: t, quarantined, tags: [...tags], errorGroupId, attempts };
  }

  /** A chunk's results (the same test twice — repeatEach — is one result; its attempts merge, a repeated retry index dropped). */
  private async collect(chunk: NormTest[], seqStart: number, d: Draft): Promise<Entry[]> {
    const entries = new Map<string, Entry>();
    for (const [i, t] of chunk.entries()) {
      if (i % SLICE === SLICE - 1) await breathe();
      const e = this.entryOf(t, seqStart + i, d);
      const entry = entries.get(e.id);
      if (entry) addAttempts(entry.attempts, e.attempts);
      else entries.set(e.id, e);
    }
    return [...entries.values()];
  }

  private async sendBatch(b: Batch): Promise<{ newResults: number; linksQueued: number }> {
    const { client, run } = this;
    // Committed apart (on another connection), shared rows are written while this transaction writes the results.
    const shared = this.shared(run.projectId, { tests: b.tests, groups: b.groups });
    shared.catch(() => undefined);
    await copyIn(client, `COPY results (${RESULT_COLUMNS}) FROM STDIN`, b.fresh.results);
    await copyIn(client, `COPY attempts (${ATTEMPT_COLUMNS}) FROM STDIN`, b.fresh.attempts);
    const mergedNew = b.merged.length > 0 ? await this.merge(b.merged) : 0;

    let linksQueued = 0;
    if (b.links.length > 0) {
      const { rowCount } = await client.query(
        `INSERT INTO manual_links (project_id, test_id, case_ref, full_title)
         SELECT $2, x.test_id, x.case_ref, x.full_title FROM jsonb_to_recordset($1::jsonb) AS x(test_id text, case_ref text, full_title text)
         ON CONFLICT DO NOTHING`,
        [JSON.stringify(b.links), run.projectId],
      );
      linksQueued = rowCount ?? 0;
    }
    await shared;
    return { newResults: b.fresh.count + mergedNew, linksQueued };
  }

  /** Results the run has already: fields merged, attempts added (idempotent per retry), status and outcome recomputed. */
  private async merge(entries: Entry[]): Promise<number> {
    const { client, run } = this;
    const { rows: upserted } = await client.query(
      `INSERT INTO results (id, run_id, project_id, test_id, seq, file, title_path, project_name, expected_status, quarantined,
         tags, annotations, location, error_group_id, shard)
       SELECT x.id, $2, $3, x.test_id, x.seq, x.file, ARRAY(SELECT jsonb_array_elements_text(x.title_path)), x.project_name,
              x.expected_status, x.quarantined, ARRAY(SELECT jsonb_array_elements_text(x.tags)), x.annotations, x.location,
              x.error_group_id, x.shard
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, test_id text, seq int, file text, title_path jsonb, project_name text,
              expected_status text, quarantined boolean, tags jsonb, annotations jsonb, location jsonb, error_group_id text, shard int)
       ON CONFLICT (id) DO UPDATE SET
         quarantined = results.quarantined OR EXCLUDED.quarantined,
         tags = ARRAY(SELECT DISTINCT unnest(results.tags || EXCLUDED.tags)),
         annotations = EXCLUDED.annotations,
         location = coalesce(EXCLUDED.location, results.location),
         error_group_id = coalesce(EXCLUDED.error_group_id, results.error_group_id),
         shard = coalesce(EXCLUDED.shard, results.shard)
       RETURNING (xmax = 0) AS inserted`,
      [
        JSON.stringify(
          entries.map((e) => ({
            id: e.id,
            test_id: e.testId,
            seq: e.seq,
            file: e.test.file,
            title_path: e.test.titlePath,
            project_name: e.test.projectName,
            expected_status: e.test.expectedStatus,
            quarantined: e.quarantined,
            tags: e.tags,
            annotations: e.test.annotations,
            location: e.test.location ?? null,
            error_group_id: e.errorGroupId,
            shard: e.test.shard ?? null,
          })),
        ),
        run.id,
        run.projectId,
      ],
    );
    await client.query(
      `INSERT INTO attempts (result_id, retry, run_id, status, duration_ms, started_at, worker_index, errors, steps, stdout, stderr, attachments)
       SELECT x.result_id, x.retry, $2, x.status, x.duration_ms, x.started_at, x.worker_index, x.errors, x.steps, x.stdout, x.stderr,
              x.attachments
         FROM jsonb_to_recordset($1::jsonb) AS x(result_id text, retry int, status text, duration_ms bigint, started_at timestamptz,
              worker_index int, errors jsonb, steps jsonb, stdout jsonb, stderr jsonb, attachments jsonb)
       ON CONFLICT (result_id, retry) DO NOTHING`,
      [
        JSON.stringify(
          entries.flatMap((e) =>
            e.attempts.map((a) => ({
              result_id: e.id,
              retry: a.retry,
              status: a.status,
              duration_ms: a.durationMs,
              started_at: a.startTime ?? null,
              worker_index: a.workerIndex ?? null,
              errors: a.errors,
              steps: a.steps,
              stdout: a.stdout,
              stderr: a.stderr,
              attachments: a.attachments,
            })),
          ),
        ),
        run.id,
      ],
    );
    // Status = the last attempt's; outcome as Playwright computes it (interrupted attempts ignored).
    await client.query(
      `UPDATE results r SET
         status = a.last_status,
         outcome = CASE WHEN a.non_skipped = 0 THEN 'skipped'
                        WHEN a.failures = 0 THEN 'expected'
                        WHEN a.failures = a.considered THEN 'unexpected'
                        ELSE 'flaky' END,
         duration_ms = a.duration_ms,
         attempt_count = a.n,
         started_at = a.started_at,
         error_message = a.error_message
       FROM (
         SELECT t.result_id,
                count(*)::int AS n,
                (array_agg(t.status ORDER BY t.retry DESC))[1] AS last_status,
                count(*) FILTER (WHERE t.status <> 'interrupted') AS considered,
                count(*) FILTER (WHERE t.status NOT IN ('interrupted', 'skipped')) AS non_skipped,
                count(*) FILTER (WHERE t.status <> 'interrupted' AND t.status <> rr.expected_status) AS failures,
                sum(t.duration_ms) AS duration_ms,
                min(t.started_at) AS started_at,
                (array_agg(t.errors -> 0 ->> 'message' ORDER BY t.retry DESC) FILTER (WHERE jsonb_array_length(t.errors) > 0))[1] AS error_message
           FROM attempts t JOIN results rr ON rr.id = t.result_id
          WHERE t.result_id = ANY($1::text[])
          GROUP BY t.result_id) a
      WHERE r.id = a.result_id`,
      [entries.map((e) => e.id)],
    );
    return upserted.filter((r) => r.inserted).length;
  }
}
