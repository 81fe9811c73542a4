/**
 * What bounds an ingestion (issue 15, items 1, 8 and 9): reports are read as streams (any chunking gives the same
 * run), their shape is refused at the token that breaks a limit (nesting, names, title paths), bodies over 1 MiB
 * wait on disk (a limited number at once per process, one more is 503), a failed report leaves nothing behind,
 * the project's counter lock is taken last (another run of the project starts while a big report is written),
 * and JUnit with a DOCTYPE is refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { encodePrincipal, PRINCIPAL_HEADER } from '@assay/service-kit';
import { REPORT_SHAPE_LIMITS } from '@assay/contracts/runs/values';
import { normalizeMetadata, type NormTest } from '../../src/ingest/normalize';
import { Slots, spoolBody, SPOOL_MEMORY_BYTES } from '../../src/ingest/spool';
import { readPlaywrightReport } from '../../src/ingest/stream';
import { failure, httpApp, runsUnit, writer, type RunsUnit } from './support';

let u: RunsUnit;
let app: FastifyInstance;
const P = '5'.repeat(24);
const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-spool-test-'));

beforeAll(async () => {
  u = await runsUnit('runs_ingest_limits', {
    INGEST_BODY_LIMIT_BYTES: String(8 * 1024 * 1024),
    INGEST_SPOOL_DIR: spoolDir,
    INGEST_MAX_LARGE_UPLOADS: '1',
  });
  app = await httpApp(u);
});
afterAll(async () => {
  await app.close();
  await u.db.drop();
  fs.rmSync(spoolDir, { recursive: true, force: true });
});

const caller = encodePrincipal(writer());
const post = (url: string, payload: string | Buffer, type = 'application/json') =>
  app.inject({ method: 'POST', url: `/ingest/${P}${url}`, headers: { 'content-type': type, [PRINCIPAL_HEADER]: caller }, payload });
const refusal = (res: { statusCode: number; json(): { error: { code: string; message: string; details?: { path: string }[] } } }) => ({
  status: res.statusCode,
  code: res.json().error.code,
  path: res.json().error.details?.[0]?.path,
});

const spec = (title: string, status = 'passed', extra: Record<string, unknown> = {}) => ({
  title,
  ...extra,
  tests: [
    { projectName: 'chromium', results: [{ status, duration: 3, errors: status === 'failed' ? [{ message: `${title} failed` }] : [] }] },
  ],
});
const suite = (title: string, specs: unknown[], suites?: unknown[]) => ({ title, file: title, specs, ...(suites ? { suites } : {}) });
const runsOf = async () => (await u.db.pool.query('SELECT counter, status FROM runs WHERE project_id = $1 ORDER BY counter', [P])).rows;

/** Everything a reader hands to the sink, without a database. */
async function readAll(chunks: (Buffer | string)[]): Promise<{ tests: NormTest[]; chunks: number }> {
  const tests: NormTest[] = [];
  let n = 0;
  await readPlaywrightReport(chunks)(async (t) => {
    n++;
    tests.push(...t);
  });
  return { tests, chunks: n };
}

describe('reading a Playwright report as a stream', () => {
  const body = JSON.stringify({
    config: { projects: [{ name: 'chromium' }] },
    suites: [
      suite(
        'ünïcödé.spec.ts',
        [spec('résumé ✓ 日本')],
        [{ title: 'group', specs: [spec('inner', 'failed')], suites: [{ title: '', specs: [spec('deep')] }] }],
      ),
      suite('b.spec.ts', [spec('b1', 'passed', { file: 'other/b.spec.ts' })]),
    ],
    errors: [{ message: 'global setup warning' }],
    stats: { startTime: '2026-01-02T03:04:05.000Z', duration: 4321 },
    metadata: { git: { branch: 'feature' } },
  });

  it('gives the same tests however the bytes are split (one byte at a time, multi-byte characters included)', async () => {
    const whole = await readAll([Buffer.from(body)]);
    const bytes = Buffer.from(body);
    const byByte = await readAll(Array.from(bytes, (b) => Buffer.from([b])));
    expect(byByte.tests).toEqual(whole.tests);
    expect(whole.tests.map((t) => [t.file, t.titlePath])).toEqual([
      ['ünïcödé.spec.ts', ['résumé ✓ 日本']],
      ['ünïcödé.spec.ts', ['group', 'inner']],
      ['ünïcödé.spec.ts', ['group', 'deep']],
      ['other/b.spec.ts', ['b1']],
    ]);
    const trailer = await readPlaywrightReport([body])(async () => undefined);
    expect(trailer).toMatchObject({ startTime: '2026-01-02T03:04:05.000Z', durationMs: 4321, metadata: { branch: 'feature' } });
    expect(trailer.errors.map((e) => e.message)).toEqual(['global setup warning']);
  });

  it('hands the tests over a thousand at a time', async () => {
    const specs = Array.from({ length: 2500 }, (_, i) => spec(`t${i}`));
    const { tests, chunks } = await readAll([JSON.stringify({ suites: [suite('big.spec.ts', specs)] })]);
    expect([tests.length, chunks]).toEqual([2500, 3]);
  });

  it.each([
    ['an empty body', '', 'body', 'empty JSON body'],
    ['an array', '[]', 'body', 'must be an object'],
    ['no suites', '{"config":{}}', 'body.suites', 'is required'],
    ['suites that are not an array', '{"suites":{"a":1}}', 'body.suites', 'must be an array'],
    ['a suite that is not an object', '{"suites":[1]}', 'body.suites[0]', 'must be an object'],
    ['specs that are not an array', '{"suites":[{"title":"a","specs":"x"}]}', 'body.suites[0].specs', 'must be an array'],
    ['errors that are not an array', '{"suites":[],"errors":{}}', 'body.errors', 'must be an array'],
    ['a truncated report', '{"suites":[{"title":"a","specs":[', 'body', 'malformed JSON'],
    ['text after the report', '{"suites":[]} {"suites":[]}', 'body', 'malformed JSON'],
    [
      'a title after the specs',
      '{"suites":[{"specs":[{"title":"t","tests":[]}],"title":"late"}]}',
      'body.suites[0].title',
      'must come before',
    ],
  ])('refuses %s with its path', async (_what, text, where, message) => {
    const err = await failure(readAll([text]));
    expect(err.reason).toBe('VALIDATION_ERROR');
    expect(err.paths).toEqual([where]);
    const res = await post('/playwright', text || ' ');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain(message);
  });

  it.each([
    ['a step that is not an object', [{ title: 'a', steps: [1] }], [{ title: 'a', steps: [] }], 'steps[0].steps[0]', 'must be an object'],
    [
      'a title that is not a string',
      [{ title: 'a' }, { title: 'b', steps: [{ title: 'c' }, { title: 5 }] }],
      [{ title: 'a' }, { title: 'b', steps: [{ title: 'c' }, { title: 'e' }] }],
      'steps[1].steps[1].title',
      'must be a string',
    ],
    [
      'a negative duration',
      [{ title: 'a', duration: -1 }],
      [{ title: 'a', duration: 1 }],
      'steps[0].duration',
      'must be a non-negative number',
    ],
    [
      'a step error without its message',
      [{ title: 'a', error: { message: 7 } }],
      [{ title: 'a', error: { message: 'm' } }],
      'steps[0].error.message',
      'must be a string',
    ],
  ])('refuses a step tree with %s at the step (its paths are built only then)', async (_what, wrong, right, where, message) => {
    const report = (tree: unknown) =>
      JSON.stringify({
        suites: [suite('a.spec.ts', [{ title: 't', tests: [{ projectName: 'p', results: [{ status: 'passed', steps: tree }] }] }])],
      });
    const at = `body.suites[0].specs[0].tests[0].results[0].${where}`;
    expect((await failure(readAll([report(wrong)]))).paths).toEqual([at]);
    const res = await post('/playwright', report(wrong));
    expect(refusal(res)).toEqual({ status: 400, code: 'VALIDATION_ERROR', path: at });
    expect(res.json().error.message).toContain(message);
    // The same tree made right is read whole.
    type Step = { title: string; steps?: Step[] };
    const titles = (tree: Step[]): unknown[] => tree.map((st) => [st.title, titles(st.steps ?? [])]);
    const { tests } = await readAll([report(right)]);
    expect(titles(tests[0]!.attempts[0]!.steps)).toEqual(titles(right as Step[]));
  });

  it('refuses suites nested deeper than the limit, and any JSON nested absurdly deep, with 400 (never a crash)', async () => {
    let nested: Record<string, unknown> = { title: 'leaf', specs: [spec('t')] };
    for (let i = 0; i < REPORT_SHAPE_LIMITS.maxSuiteDepth; i++) nested = { title: `s${i}`, suites: [nested] };
    const tooDeep = await post('/playwright', JSON.stringify({ suites: [nested] }));
    expect(refusal(tooDeep)).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(tooDeep.json().error.message).toMatch(/suites are nested more than 32 deep/);

    const deepConfig = `{"config":${'['.repeat(100_000)}${']'.repeat(100_000)},"suites":[]}`;
    const res = await post('/playwright', deepConfig);
    expect(refusal(res)).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', path: expect.stringMatching(/^body\.config(\[0\])+$/) });
    expect(res.json().error.message).toMatch(/nested more than 256 levels deep/);
  });

  it('refuses titles, file names and title paths beyond the limits', async () => {
    const long = 'x'.repeat(REPORT_SHAPE_LIMITS.maxTitle + 1);
    expect(refusal(await post('/playwright', JSON.stringify({ suites: [suite('a.spec.ts', [spec(long)])] })))).toMatchObject({
      status: 400,
      path: 'body.suites[0].specs[0].title',
    });
    expect(refusal(await post('/playwright', JSON.stringify({ suites: [suite(long, [spec('t')])] })))).toMatchObject({
      status: 400,
      path: 'body.suites[0].title',
    });
    const items = { results: [{ file: 'a.spec.ts', titlePath: Array.from({ length: 41 }, (_, i) => `d${i}`), status: 'passed' }] };
    const started = await u.ingestion.start(P, writer(), { metadata: normalizeMetadata(undefined) });
    expect(refusal(await post(`/runs/${started.runId}/results`, JSON.stringify(items)))).toMatchObject({
      status: 400,
      path: 'body.results[0].titlePath',
    });
    await u.ingestion.finish(P, started.runId, {});
  });
});

describe('one-shot reports write as they read, and number the run last', () => {
  it('a report refused after thousands of tests leaves nothing (no run, no number used)', async () => {
    const before = await runsOf();
    const specs = Array.from({ length: 2500 }, (_, i) => spec(`t${i}`));
    const bad = { suites: [suite('a.spec.ts', [...specs, { title: 'broken', tests: [{ results: [{ status: 'exploded' }] }] }])] };
    const res = await post('/playwright', JSON.stringify(bad));
    expect(refusal(res)).toMatchObject({ status: 400, path: 'body.suites[0].specs[2500].tests[0].results[0].status' });
    expect(await runsOf()).toEqual(before);
    const next = await post('/playwright', JSON.stringify({ suites: [suite('a.spec.ts', [spec('ok')])] }));
    expect(next.json().counter).toBe((before.at(-1)?.counter ?? 0) + 1);
  });

  it('another run of the project starts while a large report is being written (the counter lock comes last)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const firstChunkWritten = new Promise<void>((resolve) => (written = resolve));
    const oneShot = u.ingestion.oneShot(P, writer(), 'playwright', async (sink) => {
      await sink([{ ...testOf('slow one'), attempts: [attemptOf()] }]);
      written();
      await gate;
      return { metadata: normalizeMetadata(undefined), errors: [] };
    });
    await firstChunkWritten;
    // The one-shot's transaction is open with its tests written: a streamed run of the project is not held up.
    const started = await Promise.race([
      u.ingestion.start(P, writer(), { metadata: normalizeMetadata(undefined) }),
      new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 3000)),
    ]);
    expect(started).not.toBe('blocked');
    release();
    const done = await oneShot;
    expect(done.counter).toBe((started as { counter: number }).counter + 1);
    expect(done.testStats).toMatchObject({ total: 1, passed: 1 });
  });
});

describe('bodies over 1 MiB wait on disk, a limited number at once', () => {
  it('keeps a small body in memory and a large one in a private temp file, removed afterwards', async () => {
    const slots = new Slots(1);
    const small = await spoolBody([Buffer.alloc(1000, 'a')], { limit: 10 * 1024 * 1024, dir: spoolDir, diskSlots: slots });
    expect([small.large, fs.readdirSync(spoolDir)]).toEqual([false, []]);
    const big = await spoolBody([Buffer.alloc(SPOOL_MEMORY_BYTES, 'a'), Buffer.from('bc')], {
      limit: 10 * 1024 * 1024,
      dir: spoolDir,
      diskSlots: slots,
    });
    const files = fs.readdirSync(spoolDir);
    expect([big.large, big.size, files.length]).toEqual([true, SPOOL_MEMORY_BYTES + 2, 1]);
    expect(fs.statSync(path.join(spoolDir, files[0]!)).mode & 0o777).toBe(0o600);
    expect((await big.text()).slice(-3)).toBe('abc');
    // The one slot is taken: one more large body is refused at once, with a Retry-After.
    const refused = await spoolBody([Buffer.alloc(SPOOL_MEMORY_BYTES + 1)], {
      limit: 10 * 1024 * 1024,
      dir: spoolDir,
      diskSlots: slots,
    }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ reason: 'SERVICE_UNAVAILABLE', headers: { 'retry-after': '5' } });
    await big.dispose();
    expect(fs.readdirSync(spoolDir)).toEqual([]);
    const again = await spoolBody([Buffer.alloc(SPOOL_MEMORY_BYTES + 1)], { limit: 10 * 1024 * 1024, dir: spoolDir, diskSlots: slots });
    await again.dispose();
    await small.dispose();
  });

  it('writes a body of many chunks to its file in order while reading on, and leaves no file when the body fails midway', async () => {
    const chunkOf = (i: number) => Buffer.alloc(64 * 1024, i % 251);
    async function* body(n: number, failAt?: number) {
      for (let i = 0; i < n; i++) {
        if (i === failAt) throw new Error('connection reset');
        await new Promise(setImmediate);
        yield chunkOf(i);
      }
    }
    const opts = { limit: 64 * 1024 * 1024, dir: spoolDir, diskSlots: new Slots(1) };
    const big = await spoolBody(body(200), opts);
    const [file] = fs.readdirSync(spoolDir);
    expect(fs.readFileSync(path.join(spoolDir, file!)).equals(Buffer.concat(Array.from({ length: 200 }, (_, i) => chunkOf(i))))).toBe(true);
    expect(big.size).toBe(200 * 64 * 1024);
    await big.dispose();
    await expect(spoolBody(body(200, 100), opts)).rejects.toThrow('connection reset');
    expect(fs.readdirSync(spoolDir)).toEqual([]);
    // Its disk slot was given back.
    await (await spoolBody(body(20), opts)).dispose();
  });

  it('refuses a body over the limit while reading it (413), leaving no file', async () => {
    const err = await spoolBody([Buffer.alloc(SPOOL_MEMORY_BYTES + 10), Buffer.alloc(100)], {
      limit: SPOOL_MEMORY_BYTES + 50,
      dir: spoolDir,
      diskSlots: new Slots(1),
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'PAYLOAD_TOO_LARGE' });
    expect(fs.readdirSync(spoolDir)).toEqual([]);
  });

  it('ingests a 3 MiB report through the routes (spooled, streamed) and cleans up', async () => {
    const specs = Array.from({ length: 3000 }, (_, i) => spec(`test ${i} ${'padding '.repeat(100)}`));
    const payload = JSON.stringify({ suites: [suite('big.spec.ts', specs)] });
    expect(payload.length).toBeGreaterThan(2 * SPOOL_MEMORY_BYTES);
    const res = await post('/playwright', payload);
    expect(res.statusCode).toBe(201);
    expect(res.json().testStats).toMatchObject({ total: 3000, passed: 3000 });
    expect(fs.readdirSync(spoolDir)).toEqual([]);
  });

  it('refuses a start or finish body over 1 MiB (they carry only metadata)', async () => {
    const res = await post('/runs', JSON.stringify({ metadata: { ci: { pad: 'x'.repeat(SPOOL_MEMORY_BYTES) } } }));
    expect(refusal(res)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('JUnit XML', () => {
  it.each([
    [
      'a DOCTYPE with entities (billion laughs)',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><testsuites><testsuite name="a"><testcase name="&lol2;"/></testsuite></testsuites>',
    ],
    ['an external entity', '<?xml version="1.0"?><!DOCTYPE x SYSTEM "file:///etc/passwd"><testsuites/>'],
  ])('refuses %s with 400', async (_what, xml) => {
    const res = await post('/junit', xml, 'application/xml');
    expect(refusal(res)).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', path: 'body' });
    expect(res.json().error.message).toContain('must not declare a DOCTYPE');
  });

  it('still reads escaped characters in messages', async () => {
    const xml =
      '<testsuites><testsuite name="a"><testcase name="lt"><failure message="expected &lt;div&gt; &amp; more"/></testcase></testsuite></testsuites>';
    const res = await post('/junit', xml, 'application/xml');
    expect(res.statusCode).toBe(201);
    const { rows } = await u.db.pool.query('SELECT error_message FROM results WHERE run_id = $1', [res.json().runId]);
    expect(rows[0].error_message).toBe('expected <div> & more');
  });
});

function testOf(title: string): Omit<NormTest, 'attempts'> {
  return { file: 'gate.spec.ts', titlePath: [title], projectName: '', expectedStatus: 'passed', annotations: [], tags: [] };
}
function attemptOf(): NormTest['attempts'][number] {
  return { retry: 0, status: 'passed', durationMs: 5, errors: [], steps: [], stdout: [], stderr: [], attachments: [] };
}
