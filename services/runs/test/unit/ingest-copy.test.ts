/**
 * How ingestion writes (issue 19): results new to a run are computed in Node and COPYed with their attempts, results
 * the run already has are merged in SQL — both must store the same rows; texts the database cannot store are refused
 * as before; a chunk's writes go on while the next is read, and a failed write is still the report's error. Reports
 * are read by the scanner, and by the token parser when the scanner finds a problem: both hand over the same tests.
 */
import type { FastifyInstance } from 'fastify';
import { withTransaction, type PoolClient, type Queryable } from '@assay/db';
import { encodePrincipal, PRINCIPAL_HEADER } from '@assay/service-kit';
import { resultIdOf, testIdOf } from '../../src/domain/identity';
import { normalizeMetadata, type NormTest } from '../../src/ingest/normalize';
import { readPlaywrightReport, readResultBatch } from '../../src/ingest/stream';
import { KnownTests, TestWriter, writeSharedRows, writeTestIdentities, type SharedRowsSink } from '../../src/store/ingest';
import { deleteRun, insertRun } from '../../src/store/test-runs';
import { httpApp, runsUnit, writer, type RunsUnit } from './support';

let u: RunsUnit;
let app: FastifyInstance;
const P = '7'.repeat(24);

beforeAll(async () => {
  u = await runsUnit('runs_ingest_copy', { INGEST_BODY_LIMIT_BYTES: String(16 * 1024 * 1024) });
  app = await httpApp(u);
});
afterAll(async () => {
  await app.close();
  await u.db.drop();
});

const post = (url: string, payload: unknown) =>
  app.inject({
    method: 'POST',
    url: `/ingest/${P}${url}`,
    headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: encodePrincipal(writer()) },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
const refusal = (res: { statusCode: number; json(): { error: { code: string; message: string; details?: { path: string }[] } } }) => ({
  status: res.statusCode,
  code: res.json().error.code,
  message: res.json().error.message,
  paths: (res.json().error.details ?? []).map((d) => d.path),
});
const runCount = async () => (await u.db.pool.query('SELECT count(*)::int AS n FROM runs WHERE project_id = $1', [P])).rows[0].n as number;

/** Every stored column of a run's results and attempts, by test (ids and times of the write aside). */
async function stored(runId: string) {
  const results = await u.db.pool.query(
    `SELECT test_id, seq, file, title_path, project_name, expected_status, status, outcome, duration_ms, attempt_count, quarantined,
            tags, annotations, location, error_message, error_group_id, started_at, shard
       FROM results WHERE run_id = $1 ORDER BY seq`,
    [runId],
  );
  const attempts = await u.db.pool.query(
    `SELECT r.test_id, a.retry, a.status, a.duration_ms, a.started_at, a.worker_index, a.errors, a.steps, a.stdout, a.stderr, a.attachments
       FROM attempts a JOIN results r ON r.id = a.result_id WHERE a.run_id = $1 ORDER BY r.seq, a.retry`,
    [runId],
  );
  return { results: results.rows, attempts: attempts.rows };
}

/** Attempts of one test in the streaming API's item shape. */
const item = (title: string, retry: number, status: string, extra: Record<string, unknown> = {}) => ({
  file: 'merge.spec.ts',
  titlePath: ['merge', title],
  projectName: 'chromium',
  retry,
  status,
  duration: 10 + retry,
  startTime: new Date(Date.UTC(2026, 3, 1, 10, 0, 30 - retry * 7)).toISOString(),
  ...extra,
});
const ITEMS = [
  item('passes', 0, 'passed', { tags: ['@smoke'], annotations: [{ type: 'issue', description: 'A-1' }] }),
  item('fails', 0, 'failed', { errors: [{ message: 'first\nsecond line' }] }),
  item('fails', 1, 'timedOut', { errors: [{ message: 'Timeout 5000ms exceeded' }], workerIndex: 3 }),
  item('flaky', 0, 'failed', { errors: [{ message: 'expect(received).toBe(expected) 41' }], stdout: ['out\tput\n', 'back\\slash'] }),
  item('flaky', 1, 'passed', { steps: [{ title: 'step "quoted"', duration: 2, steps: [{ title: 'inner', duration: 1 }] }] }),
  item('skipped', 0, 'skipped'),
  item('expected failure', 0, 'failed', { expectedStatus: 'failed', errors: [{ message: 'as expected' }] }),
  item('interrupted then passed', 0, 'interrupted'),
  item('interrupted then passed', 1, 'passed'),
  item('only interrupted', 0, 'interrupted', { location: { file: 'merge.spec.ts', line: 3, column: 7 } }),
  item('skipped then interrupted', 0, 'skipped'),
  item('skipped then interrupted', 1, 'interrupted'),
  item('retry sent twice', 0, 'failed', { errors: [{ message: 'once' }] }),
  item('retry sent twice', 0, 'passed'),
  item('ünïcödé › 日本 {a,b} "x"', 0, 'passed', { tags: ['with,comma', 'with "quote"', 'back\\slash'], shard: 2 }),
];

describe('results computed in Node (new, COPYed) and merged in SQL (already there)', () => {
  it('store the same rows: a re-sent batch, merged in SQL, changes nothing', async () => {
    const { runId } = await u.ingestion.start(P, writer(), {
      metadata: { branch: '', environment: '', commit: { hash: '', message: '', author: '' }, ci: {}, tags: [], extra: {} },
    });
    const batch = JSON.stringify({ results: ITEMS });
    const first = await u.ingestion.results(P, runId, readResultBatch([Buffer.from(batch)]));
    expect(first).toMatchObject({ accepted: ITEMS.length, tests: 10, newResults: 10 });
    const computedInNode = await stored(runId);
    expect(computedInNode.results.map((r) => [r.title_path[1], r.status, r.outcome, r.attempt_count, Number(r.duration_ms)])).toEqual([
      ['passes', 'passed', 'expected', 1, 10],
      ['fails', 'timedOut', 'unexpected', 2, 21],
      ['flaky', 'passed', 'flaky', 2, 21],
      ['skipped', 'skipped', 'skipped', 1, 10],
      ['expected failure', 'failed', 'expected', 1, 10],
      ['interrupted then passed', 'passed', 'expected', 2, 21],
      ['only interrupted', 'interrupted', 'skipped', 1, 10],
      ['skipped then interrupted', 'interrupted', 'skipped', 2, 21],
      ['retry sent twice', 'failed', 'unexpected', 1, 10],
      ['ünïcödé › 日本 {a,b} "x"', 'passed', 'expected', 1, 10],
    ]);
    expect(computedInNode.results[1]).toMatchObject({
      error_message: 'Timeout 5000ms exceeded',
      started_at: new Date(Date.UTC(2026, 3, 1, 10, 0, 23)),
    });
    expect(computedInNode.results[9]).toMatchObject({ tags: ['with,comma', 'with "quote"', 'back\\slash'], shard: 2 });

    const again = await u.ingestion.results(P, runId, readResultBatch([Buffer.from(batch)]));
    expect(again).toMatchObject({ accepted: ITEMS.length, tests: 10, newResults: 0 });
    // A merge takes the union of the tags (in the order SELECT DISTINCT gives them).
    const tagsSorted = (s: Awaited<ReturnType<typeof stored>>) => ({
      ...s,
      results: s.results.map((r) => ({ ...r, tags: [...(r.tags as string[])].sort() })),
    });
    expect(tagsSorted(await stored(runId))).toEqual(tagsSorted(computedInNode));
  });

  it('a retry reported in a later batch is merged into its result, as in one batch', async () => {
    const meta = { branch: '', environment: '', commit: { hash: '', message: '', author: '' }, ci: {}, tags: [], extra: {} };
    const split = await u.ingestion.start(P, writer(), { metadata: meta });
    for (const i of ITEMS) await u.ingestion.results(P, split.runId, readResultBatch([Buffer.from(JSON.stringify({ results: [i] }))]));
    const whole = await u.ingestion.start(P, writer(), { metadata: meta });
    await u.ingestion.results(P, whole.runId, readResultBatch([Buffer.from(JSON.stringify({ results: ITEMS }))]));
    const [a, b] = [await stored(split.runId), await stored(whole.runId)];
    // One batch per item numbers every item; one batch numbers every test.
    const noSeq = (rows: Record<string, unknown>[]) => rows.map(({ seq: _seq, ...rest }) => rest);
    expect(noSeq(a.results)).toEqual(noSeq(b.results));
    expect(a.attempts).toEqual(b.attempts);
  });

  it.each([
    ['a later chunk', 1200],
    ['the same chunk', 3],
  ])('a test repeated in %s of one report is merged into its result', async (_where, between) => {
    const spec = (title: string, retry: number, status: string) => ({
      title,
      tests: [
        {
          projectName: 'p',
          results: [{ retry, status, duration: 5, errors: status === 'failed' ? [{ message: `${title} failed` }] : [] }],
        },
      ],
    });
    const specs = [
      spec('repeated', 0, 'failed'),
      ...Array.from({ length: between }, (_, i) => spec(`t${i}`, 0, 'passed')),
      spec('repeated', 1, 'passed'),
    ];
    const res = await post('/playwright', { suites: [{ title: 'r.spec.ts', specs }] });
    expect(res.statusCode).toBe(201);
    expect(res.json().testStats).toMatchObject({
      total: between + 1,
      passed: between,
      flaky: 1,
      totalAttempts: between + 2,
      retriedTests: 1,
    });
    const { rows } = await u.db.pool.query(
      `SELECT seq, status, outcome, attempt_count, error_message FROM results WHERE run_id = $1 AND title_path = '{repeated}'`,
      [res.json().runId],
    );
    expect(rows).toEqual([{ seq: 0, status: 'passed', outcome: 'flaky', attempt_count: 2, error_message: 'repeated failed' }]);
  });
});

/** A new playwright run of project P (no counter: these tests write its results directly). */
/** A normalised test of `file` titled `title` whose attempts end as `statuses`, retry after retry. */
const normTest = (file: string, title: string, statuses: ('passed' | 'failed')[]): NormTest => ({
  file,
  titlePath: [title],
  projectName: '',
  expectedStatus: 'passed',
  annotations: [],
  tags: [],
  attempts: statuses.map((status, retry) => ({
    retry,
    status,
    durationMs: 5 + retry,
    errors: [],
    steps: [],
    stdout: [],
    stderr: [],
    attachments: [],
  })),
});

const newRun = (db: Queryable) =>
  insertRun(
    db,
    {
      projectId: P,
      orgId: 'c'.repeat(24),
      source: 'playwright',
      metadata: normalizeMetadata(undefined),
      startTime: new Date(),
      createdBy: 't',
    },
    { counter: false },
  );

/** Writes `tests` into a new run as an ingestion does (encoded as they come, the rest at the end); its new results. */
async function writeNew(w: TestWriter, tests: NormTest[]): Promise<number> {
  const completed = await w.send(await w.add(tests));
  const last = await w.send(w.end());
  return completed.newResults + last.newResults;
}

it('a new run keeps a small key per result it wrote: a second result with the same key is merged in SQL, written and counted', async () => {
  const run = await newRun(u.db.pool);
  // Two titles whose result ids share their first 30 bits (found by trying: about 2^15 tries).
  const keyOf = (title: string) =>
    Number.parseInt(resultIdOf(run.id, testIdOf(P, 'key.spec.ts', [title], '')).slice(0, 8), 16) & 0x3fffffff;
  const seen = new Map<number, string>();
  let pair: [string, string] | undefined;
  for (let i = 0; !pair; i++) {
    const title = `t${i}`;
    const other = seen.get(keyOf(title));
    if (other !== undefined) pair = [other, title];
    else seen.set(keyOf(title), title);
  }
  const test = (title: string, status: 'passed' | 'failed') => normTest('key.spec.ts', title, [status]);
  const counts = await withTransaction(u.db.pool, async (c) => {
    const w = new TestWriter(c, run, [], true);
    return [await writeNew(w, [test(pair![0], 'passed')]), await writeNew(w, [test(pair![1], 'failed')])];
  });
  expect(counts).toEqual([1, 1]);
  const { rows } = await u.db.pool.query(
    'SELECT title_path[1] AS title, seq, status, outcome, attempt_count FROM results WHERE run_id = $1 ORDER BY seq',
    [run.id],
  );
  expect(rows).toEqual([
    { title: pair[0], seq: 0, status: 'passed', outcome: 'expected', attempt_count: 1 },
    { title: pair[1], seq: 1, status: 'failed', outcome: 'unexpected', attempt_count: 1 },
  ]);
  await u.db.pool.query('DELETE FROM runs WHERE id = $1', [run.id]);
});

/**
 * Writes `tests` into a new run twice, as two uploads whose shared rows commit apart: the second while the first's
 * transaction is still open. Resolves to what each wrote, or 'still waiting' when the second waited 5 s on the first.
 */
async function uploadBesideAnOpenOne(tests: NormTest[]): Promise<[number, number | 'still waiting']> {
  const apart: SharedRowsSink = (projectId, rows) => writeSharedRows(u.w.sharedRows, projectId, rows);
  const upload = async (c: PoolClient) => writeNew(new TestWriter(c, await newRun(c), [], true, apart), tests);
  const first = await u.db.pool.connect();
  let timer: NodeJS.Timeout | undefined;
  try {
    await first.query('BEGIN');
    const written = await upload(first);
    const waited = new Promise<'still waiting'>((resolve) => (timer = setTimeout(resolve, 5000, 'still waiting')));
    return [written, await Promise.race([withTransaction(u.db.pool, upload), waited])];
  } finally {
    clearTimeout(timer);
    await first.query('ROLLBACK');
    first.release();
  }
}

it('test identities commit apart: a second upload of the same new tests does not wait for the first to end', async () => {
  expect(await uploadBesideAnOpenOne([normTest('apart.spec.ts', 'new', ['passed'])])).toEqual([1, 1]);
  const { rows } = await u.db.pool.query('SELECT count(*)::int AS n FROM tests WHERE project_id = $1 AND file = $2', [P, 'apart.spec.ts']);
  expect(rows[0].n).toBe(1);
});

it('error groups commit apart: a second upload of the same new failure does not wait for the first to end', async () => {
  const failing = normTest('apart-groups.spec.ts', 'fails', ['failed']);
  failing.attempts[0]!.errors = [{ message: 'expected the apart banner to be visible' }];
  expect(await uploadBesideAnOpenOne([failing])).toEqual([1, 1]);
  const { rows } = await u.db.pool.query(
    `SELECT count(*)::int AS n FROM results r JOIN error_groups g ON g.id = r.error_group_id WHERE r.project_id = $1 AND r.file = $2`,
    [P, 'apart-groups.spec.ts'],
  );
  expect(rows[0].n).toBe(1);
});

it('test identities seen committed are not written again, and past its limit the cache forgets the oldest first', async () => {
  const known = new KnownTests(2);
  const idOf = (title: string) => testIdOf(P, 'known.spec.ts', [title], '');
  const rows = (titles: string[]) => ({
    ids: titles.map(idOf),
    files: titles.map(() => 'known.spec.ts'),
    titlePaths: titles.map((t) => `{"${t}"}`),
    names: titles.map(() => ''),
    titles,
  });
  const written: unknown[] = [];
  const counting = {
    query: (sql: string, params: unknown[]) => {
      written.push(params[0]);
      return u.w.sharedRows.query(sql, params);
    },
  } as Queryable;
  await writeTestIdentities(counting, P, rows(['a', 'b']), known);
  await writeTestIdentities(counting, P, rows(['a', 'b']), known);
  await writeTestIdentities(counting, P, rows(['b', 'c']), known);
  expect(known.size).toBe(2);
  await writeTestIdentities(counting, P, rows(['a', 'c']), known);
  expect(written).toEqual([[idOf('a'), idOf('b')], [idOf('c')], [idOf('a')]]);
  const { rows: stored } = await u.db.pool.query(
    'SELECT title_path[1] AS title FROM tests WHERE project_id = $1 AND file = $2 ORDER BY 1',
    [P, 'known.spec.ts'],
  );
  expect(stored.map((r) => r.title)).toEqual(['a', 'b', 'c']);
});

describe('texts the database cannot store', () => {
  const spec = (title: string, stdout = 'ok') => ({ title, tests: [{ results: [{ status: 'passed', stdout: [{ text: stdout }] }] }] });

  it.each([
    ['a NUL in a title', spec('a\u0000b'), 'a text contains a character that cannot be stored'],
    ['a NUL in an output', spec('t', 'a\u0000b'), 'a text contains a character that cannot be stored'],
    ['a lone surrogate in a title', spec('a\ud800b'), 'a value has the wrong format'],
  ])('%s: 400 VALIDATION_ERROR at body, no run', async (_what, bad, message) => {
    const before = await runCount();
    const res = await post('/playwright', { suites: [{ title: 'nul.spec.ts', specs: [spec('fine'), bad] }] });
    expect(refusal(res)).toEqual({ status: 400, code: 'VALIDATION_ERROR', message: `The request is invalid: ${message}`, paths: ['body'] });
    expect(await runCount()).toBe(before);
  });

  it('a failed write of an early chunk is the error, though the reader found a later problem meanwhile', async () => {
    const before = await runCount();
    const specs = Array.from({ length: 2500 }, (_, i) => spec(i === 10 ? 'a\u0000b' : `t${i}`));
    const body = Buffer.from(JSON.stringify({ suites: [{ title: 'late.spec.ts', specs }] }).replace('"t2400"', '"t2400","tests":7,"x"'));
    // Read 16 KiB at a time: the first thousand tests are handed over (and their write fails) long before the problem.
    const pieces = Array.from({ length: Math.ceil(body.length / 16384) }, (_, i) => body.subarray(i * 16384, (i + 1) * 16384));
    const err = await u.ingestion.oneShot(P, writer(), 'playwright', readPlaywrightReport(pieces)).catch((e: unknown) => e);
    expect(err).toMatchObject({
      reason: 'VALIDATION_ERROR',
      message: 'The request is invalid: a text contains a character that cannot be stored',
    });
    expect(await runCount()).toBe(before);
  });
});

describe('the scanner and the token parser', () => {
  /** Tests and trailer as the scanner (chunks in memory) and as the token parser (a stream read once) hand them over. */
  async function both(text: string, size: number) {
    const pieces: Buffer[] = [];
    const buf = Buffer.from(text);
    for (let i = 0; i < buf.length; i += size) pieces.push(buf.subarray(i, i + size));
    const read = async (source: Iterable<Buffer>): Promise<{ tests?: NormTest[]; trailer?: unknown; error?: string }> => {
      const tests: NormTest[] = [];
      try {
        const trailer = await readPlaywrightReport(source)(async (t) => {
          tests.push(...t);
        });
        return { tests, trailer };
      } catch (err) {
        return { error: (err as Error).message };
      }
    };
    return {
      scanner: await read(pieces),
      parser: await read(
        (function* () {
          yield* pieces;
        })(),
      ),
    };
  }
  const spec = (i: number) => ({
    title: `t${i} "q" \\ ü`,
    line: i,
    tags: i % 3 ? [] : ['@slow'],
    tests: [
      { projectName: 'p', results: [{ status: i % 5 ? 'passed' : 'failed', duration: 2.5, errors: i % 5 ? [] : [{ message: `e${i}` }] }] },
    ],
  });
  const reportOf = (n: number) =>
    JSON.stringify({
      config: { projects: [{ name: 'p', use: { viewport: null } }], 'odd "key"': [1, -2.5e-3, true, {}] },
      suites: [
        {
          title: 'a.spec.ts',
          file: 'a.spec.ts',
          specs: Array.from({ length: n }, (_, i) => spec(i)),
          suites: [{ title: 'inner', specs: [spec(n)] }],
        },
      ],
      errors: [{ message: 'warning' }],
      stats: { startTime: '2026-01-02T03:04:05.000Z', duration: 42 },
    });

  it.each([1, 13, 65536])('hand over the same tests and trailer (read %i bytes at a time)', async (size) => {
    const { scanner, parser } = await both(reportOf(size === 1 ? 30 : 1500), size);
    expect(scanner).toEqual(parser);
    expect(scanner.error).toBeUndefined();
    expect(scanner.tests?.length).toBe(size === 1 ? 31 : 1501);
  });

  it.each([
    ['a truncated report after a thousand tests', (r: string) => r.slice(0, -20)],
    ['a missing comma after a thousand tests', (r: string) => r.replace('{"title":"t1400', '{"title":"t1400"}{"title":"x')],
    [
      'a value nested too deep after a thousand tests',
      (r: string) => r.replace('"line":1400', `"line":${'['.repeat(300)}${']'.repeat(300)}`),
    ],
    ['a byte-order mark', (r: string) => `\ufeff${r}`],
  ])('agree on %s', async (_what, change) => {
    const { scanner, parser } = await both(change(reportOf(1500)), 65536);
    expect(scanner).toEqual(parser);
  });
});

it("a run's deletion takes its results and attempts with it (a statement trigger: the tables have no foreign keys), not another run's", async () => {
  const tests = [normTest('gone.spec.ts', 'gone', ['failed', 'passed'])];
  const written = await Promise.all(
    [0, 1].map(() =>
      withTransaction(u.db.pool, async (c) => {
        const run = await newRun(c);
        const w = new TestWriter(c, run, [], true);
        await writeNew(w, tests);
        return run.id;
      }),
    ),
  );
  const [doomed, kept] = written as [string, string];
  const counts = async (runId: string) =>
    (
      await u.db.pool.query(
        `SELECT (SELECT count(*)::int FROM results WHERE run_id = $1) AS results, (SELECT count(*)::int FROM attempts WHERE run_id = $1) AS attempts`,
        [runId],
      )
    ).rows[0];
  expect(await counts(doomed)).toEqual({ results: 1, attempts: 2 });
  expect(await deleteRun(u.db.pool, doomed)).toBe(1);
  expect(await counts(doomed)).toEqual({ results: 0, attempts: 0 });
  expect(await counts(kept)).toEqual({ results: 1, attempts: 2 });
  await deleteRun(u.db.pool, kept);
});
