/**
 * The `ingest` family on the internal HTTP port (ingest/routes.ts → ingest/ingestion.ts → store/ingest.ts), over
 * `app.inject` with the caller principal as the gateway sends it: the streaming API (start, batches, finish),
 * one-shot Playwright and JUnit reports, the compatibility upload, the skip list, every refusal with its status
 * and detail path, and the outbox rows and wake-ups each write leaves behind.
 */
import type { FastifyInstance } from 'fastify';
import { encodePrincipal, PRINCIPAL_HEADER } from '@assay/service-kit';
import { RuleOperation } from '@assay/proto/assay/runs/v1/runs_pb';
import { RunStatus } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { as, principal } from '@assay/testkit';
import { pendingEvents } from '../../src/store/outbox';
import { httpApp, runsUnit, writer, type RunsUnit } from './support';

let u: RunsUnit;
let app: FastifyInstance;
const P = '9'.repeat(24);
const wakes = { events: 0, links: 0 };

beforeAll(async () => {
  u = await runsUnit('runs_ingest', { INGEST_BODY_LIMIT_BYTES: '4096' });
  u.w.onEvents(() => wakes.events++);
  u.w.onLinks(() => wakes.links++);
  app = await httpApp(u);
});
afterAll(async () => {
  await app.close();
  await u.db.drop();
});

const caller = encodePrincipal(writer());
const post = (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: `/ingest/${P}${url}`,
    headers: { 'content-type': 'application/json', [PRINCIPAL_HEADER]: caller, ...headers },
    payload: payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
const errorOf = (res: { statusCode: number; json(): { error: { code: string; details?: { path: string }[] } } }) => ({
  status: res.statusCode,
  code: res.json().error.code,
  paths: (res.json().error.details ?? []).map((d) => d.path),
});
const eventsOf = async (runId: string) => (await pendingEvents(u.db.pool, 1000)).filter((e) => e.runId === runId).map((e) => e.type);

const report = (tests: { title: string; status: string; error?: string }[]) => ({
  suites: [
    {
      title: 'a.spec.ts',
      file: 'a.spec.ts',
      specs: tests.map((t) => ({
        title: t.title,
        tests: [{ projectName: 'chromium', results: [{ status: t.status, duration: 5, errors: t.error ? [{ message: t.error }] : [] }] }],
      })),
    },
  ],
  stats: { startTime: '2026-04-01T10:00:00.000Z', duration: 1234 },
  metadata: { git: { branch: 'release', commit: { hash: 'f00d' } } },
});

describe('ingestion routes', () => {
  it('streams a run: start (201, RUN_STARTED), batches (idempotent per test and retry), finish (status computed, RUN_FINISHED once)', async () => {
    const before = { ...wakes };
    const start = await post('/runs', { metadata: { git: { branch: 'main' } }, totalTests: 2, startTime: '2026-04-01T09:00:00Z' });
    expect(start.statusCode).toBe(201);
    const { runId, counter, url, status } = start.json();
    expect({ counter, status, url }).toEqual({ counter: 1, status: 'running', url: `https://ui.example.test/projects/${P}/runs/${runId}` });
    expect(Object.keys(start.json())).toEqual(['runId', 'counter', 'url', 'status']);

    const items = {
      results: [
        { file: 'a.spec.ts', titlePath: ['ok'], status: 'passed', duration: 3 },
        {
          file: 'a.spec.ts',
          titlePath: ['bad'],
          status: 'failed',
          retry: 0,
          errors: [{ message: 'boom' }],
          annotations: [{ type: 'tc', description: 'TC-4' }],
        },
        { file: 'a.spec.ts', titlePath: ['bad'], status: 'failed', retry: 1, errors: [{ message: 'boom' }] },
      ],
    };
    const batch = await post(`/runs/${runId}/results`, items);
    expect(batch.json()).toEqual({ runId, accepted: 3, tests: 2, newResults: 2, quarantined: [] });
    expect((await post(`/runs/${runId}/results`, items)).json()).toEqual({ runId, accepted: 3, tests: 2, newResults: 0, quarantined: [] });
    expect(wakes.links).toBe(before.links + 1);

    const finish = await post(`/runs/${runId}/finish`);
    expect(finish.statusCode).toBe(200);
    expect(finish.json()).toMatchObject({
      runId,
      status: 'failed',
      testStats: { total: 2, passed: 1, failed: 1, totalAttempts: 3, retriedTests: 1 },
    });
    expect(wakes.events).toBe(before.events + 2);
    expect((await post(`/runs/${runId}/finish`, { status: 'passed' })).json().status).toBe('failed');
    expect(await eventsOf(runId)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    expect(errorOf(await post(`/runs/${runId}/results`, items))).toEqual({ status: 409, code: 'CONFLICT', paths: [] });
  });

  it('finish takes the status and end time it is given', async () => {
    const { runId } = (await post('/runs', {})).json();
    const res = await post(`/runs/${runId}/finish`, { status: 'interrupted', endTime: '2099-01-01T00:00:00Z' });
    expect(res.json()).toMatchObject({ status: 'interrupted', testStats: { total: 0 } });
    const snap = await u.runs.getRunSnapshot({ runId }, as(principal()));
    expect(snap.run!.status).toBe(RunStatus.INTERRUPTED);
    expect(snap.run!.endTime!.seconds).toBe(BigInt(Date.parse('2099-01-01T00:00:00Z') / 1000));
  });

  it.each([
    ['a body that is not JSON', '/runs', 'x', { 'content-type': 'text/plain' }, [415, 'UNSUPPORTED_MEDIA_TYPE', []]],
    ['an empty body', '/runs', '', {}, [400, 'VALIDATION_ERROR', ['body']]],
    ['malformed JSON', '/runs', '{"metadata":', {}, [400, 'VALIDATION_ERROR', ['body']]],
    ['an unknown property', '/runs', { extra: 1 }, {}, [400, 'VALIDATION_ERROR', ['body.extra']]],
    ['a negative totalTests', '/runs', { totalTests: -1 }, {}, [400, 'VALIDATION_ERROR', ['body.totalTests']]],
    ['a startTime that is no date', '/runs', { startTime: 'yesterday' }, {}, [400, 'VALIDATION_ERROR', ['body.startTime']]],
    ['metadata that is no object', '/runs', { metadata: [] }, {}, [400, 'VALIDATION_ERROR', ['body.metadata']]],
    ['a report without suites', '/playwright', { config: {} }, {}, [400, 'VALIDATION_ERROR', ['body.suites']]],
    [
      'a result of an unknown status',
      '/playwright',
      { suites: [{ title: 'f', specs: [{ title: 't', tests: [{ results: [{ status: 'green' }] }] }] }] },
      {},
      [400, 'VALIDATION_ERROR', ['body.suites[0].specs[0].tests[0].results[0].status']],
    ],
    ['a report over the limit', '/playwright', { suites: [], pad: 'x'.repeat(5000) }, {}, [413, 'PAYLOAD_TOO_LARGE', []]],
    ['JUnit sent as JSON', '/junit', {}, {}, [415, 'UNSUPPORTED_MEDIA_TYPE', []]],
    ['malformed XML', '/junit', '<testsuites><testsuite>', { 'content-type': 'application/xml' }, [400, 'VALIDATION_ERROR', ['body']]],
  ] as const)('refuses %s', async (_label, path, payload, headers, [status, code, paths]) => {
    expect(errorOf(await post(path, payload, headers))).toEqual({ status, code, paths });
  });

  it('refuses bad batches and finishes at their path, and runs of another project', async () => {
    const { runId } = (await post('/runs', {})).json();
    expect(errorOf(await post(`/runs/${runId}/results`, { results: [{ file: 'a', titlePath: [], status: 'passed' }] })).paths).toEqual([
      'body.results[0].titlePath',
    ]);
    expect(errorOf(await post(`/runs/${runId}/results`, { results: [], more: 1 })).paths).toEqual(['body.more']);
    expect(errorOf(await post(`/runs/${runId}/finish`, { status: 'running' })).paths).toEqual(['body.status']);
    const other = await app.inject({
      method: 'POST',
      url: `/ingest/${'0'.repeat(24)}/runs/${runId}/finish`,
      headers: { [PRINCIPAL_HEADER]: caller },
    });
    expect(errorOf(other)).toEqual({ status: 404, code: 'NOT_FOUND', paths: [] });
    expect(
      errorOf(
        await app.inject({ method: 'POST', url: `/ingest/${P}/runs`, payload: '{}', headers: { 'content-type': 'application/json' } }),
      ),
    ).toEqual({
      status: 401,
      code: 'UNAUTHORIZED',
      paths: [],
    });
  });

  it('takes a Playwright report in one call (201; the compatibility upload 200) with its metadata, start time and duration', async () => {
    const res = await post(
      '/playwright',
      report([
        { title: 'one', status: 'passed' },
        { title: 'two', status: 'failed', error: 'x' },
      ]),
    );
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ status: 'failed', testStats: { total: 2, passed: 1, failed: 1 } });
    const snap = (await u.runs.getRunSnapshot({ runId: res.json().runId })).run!;
    expect(snap).toMatchObject({ duration: 1234n, git: { branch: 'release', commit: { hash: 'f00d' } } });
    expect(await eventsOf(res.json().runId)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    const compat = await post('/compat/playwright', report([{ title: 'one', status: 'passed' }]));
    expect([compat.statusCode, compat.json().status]).toEqual([200, 'passed']);
  });

  it('takes a JUnit XML report with its metadata in the query', async () => {
    const xml = `<?xml version="1.0"?>
      <testsuites><testsuite name="api" file="api.xml">
        <testcase name="lists" time="0.5"/>
        <testcase name="creates" time="1"><failure message="Timeout of 2000ms exceeded"/></testcase>
        <testcase name="skips"><skipped/></testcase>
      </testsuite></testsuites>`;
    const res = await app.inject({
      method: 'POST',
      url: `/ingest/${P}/junit?branch=dev&commit=c0ffee&tags=nightly,api`,
      headers: { 'content-type': 'application/xml', [PRINCIPAL_HEADER]: caller },
      payload: xml,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ status: 'failed', testStats: { total: 3, passed: 1, failed: 1, skipped: 1, timedOut: 1 } });
    const snap = (await u.runs.getRunSnapshot({ runId: res.json().runId })).run!;
    expect(snap).toMatchObject({ git: { branch: 'dev', commit: { hash: 'c0ffee' } }, tags: ['nightly', 'api'] });
  });

  it('serves the tests active skip rules name (no other rule, no other project)', async () => {
    expect((await app.inject({ method: 'GET', url: `/ingest/${P}/skip-list`, headers: { [PRINCIPAL_HEADER]: caller } })).json()).toEqual({
      rules: [],
      tests: [],
    });
    const { id } = await u.admin.createRule({ projectId: P, name: 'skip ok', operations: [RuleOperation.SKIP], titlePattern: '^ok$' });
    await u.admin.createRule({ projectId: P, name: 'tag all', operations: [RuleOperation.TAG], tag: 't', titlePattern: '.' });
    const res = await app.inject({ method: 'GET', url: `/ingest/${P}/skip-list`, headers: { [PRINCIPAL_HEADER]: caller } });
    expect(res.json()).toEqual({
      rules: [{ id, name: 'skip ok', titlePattern: '^ok$', file: null, tag: null }],
      tests: [{ testId: expect.stringMatching(/^[0-9a-f]{24}$/), file: 'a.spec.ts', titlePath: ['ok'], title: 'ok', projectName: '' }],
    });
  });

  it('joins the shards of one build: concurrent starts make one run and one RUN_STARTED; the last shard finishes it', async () => {
    const start = (current: number) => post('/runs', { buildId: 'ci-77', shard: { current, total: 3 } });
    const starts = await Promise.all([start(1), start(2), start(3)]);
    expect(starts.map((r) => r.statusCode).sort()).toEqual([200, 200, 201]);
    const runId = starts[0]!.json().runId;
    expect(new Set(starts.map((r) => r.json().runId))).toEqual(new Set([runId]));
    expect(await eventsOf(runId)).toEqual(['RUN_STARTED']);
    const item = (shard: number, title: string) => ({ file: 'a.spec.ts', titlePath: [title], status: 'passed', duration: 1, shard });
    const batch = await post(`/runs/${runId}/results`, { results: [item(1, 'one'), item(2, 'two')] });
    expect(batch.json()).toMatchObject({ accepted: 2, quarantined: [] });
    const shards = await u.db.pool.query(`SELECT shard FROM results WHERE run_id = $1 ORDER BY shard`, [runId]);
    expect(shards.rows.map((r) => r.shard)).toEqual([1, 2]);
    for (const current of [2, 1, 1]) {
      const f = await post(`/runs/${runId}/finish`, { shard: { current, total: 3 } });
      expect(f.json()).toMatchObject({ status: 'running', buildId: 'ci-77' });
    }
    expect(await eventsOf(runId)).toEqual(['RUN_STARTED']);
    const last = await post(`/runs/${runId}/finish`, { shard: { current: 3, total: 3 } });
    expect(last.json()).toMatchObject({ status: 'passed', shards: { total: 3, finished: [1, 2, 3] } });
    expect(await eventsOf(runId)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    expect(errorOf(await start(1))).toEqual({ status: 409, code: 'CONFLICT', paths: [] });
  });

  it('groups a failure new to the project once when concurrent uploads report it together (no 500 on the race)', async () => {
    const runIds: string[] = [];
    for (let i = 0; i < 6; i++) runIds.push((await post('/runs', {})).json().runId);
    for (let round = 0; round < 200; round++) {
      const message = `expected ${'x'.repeat(round + 1)} to be visible`; // digits would normalize to one group
      const batches = await Promise.all(
        runIds.map((runId, i) =>
          post(`/runs/${runId}/results`, {
            results: [{ file: 'race.spec.ts', titlePath: [`t${round}.${i}`], status: 'failed', duration: 1, errors: [{ message }] }],
          }),
        ),
      );
      expect(batches.map((r) => r.statusCode)).toEqual(runIds.map(() => 200));
      const groups = await u.db.pool.query(`SELECT message FROM error_groups WHERE project_id = $1 AND message = $2`, [P, message]);
      expect(groups.rowCount).toBe(1);
    }
  });

  it('answers which tests of a batch active quarantine rules cover', async () => {
    await u.admin.createRule({ projectId: P, name: 'q', operations: [RuleOperation.QUARANTINE], titlePattern: '^known › ' });
    const runId = (await post('/runs', {})).json().runId;
    const res = await post(`/runs/${runId}/results`, {
      results: [
        { file: 'k.spec.ts', titlePath: ['known', 'breaks'], projectName: 'chromium', status: 'failed' },
        { file: 'k.spec.ts', titlePath: ['other'], projectName: 'chromium', status: 'failed' },
      ],
    });
    expect(res.json().quarantined).toEqual([{ file: 'k.spec.ts', titlePath: ['known', 'breaks'], projectName: 'chromium' }]);
  });
});
