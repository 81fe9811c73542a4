/**
 * Ingestion's own record of an `Idempotency-Key` (the service kit's `idempotentTransaction`): the gateway streams
 * the body unread and names no fingerprint (FINGERPRINT_OF_BODY); the service fingerprints the body as it spools it
 * and writes the record with the ingestion, in its transaction. A retry reaching the service again (the gateway's
 * record lost to a crash between the commit and the answer) gets the first answer back and writes nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  encodePrincipal,
  FINGERPRINT_OF_BODY,
  idempotencyHeaderValue,
  IDEMPOTENCY_RECORD_HEADER,
  IDEMPOTENCY_REPLAYED_HEADER,
  PRINCIPAL_HEADER,
} from '@assay/service-kit';
import { httpApp, runsUnit, writer, type RunsUnit } from './support';

let u: RunsUnit;
let app: FastifyInstance;

beforeAll(async () => {
  u = await runsUnit('runs_ingest_idem');
  app = await httpApp(u);
});
afterAll(async () => {
  await app.close();
  await u.db.drop();
});

let projects = 0;
const newProject = () => String(++projects).padStart(24, 'a');
const caller = encodePrincipal(writer());

/** A key's header as the gateway sends it for a streamed body: a fresh record name, no fingerprint, a seal key. */
function keyHeader(over: { record?: string; sealKey?: Buffer } = {}) {
  const record = over.record ?? createHash('sha256').update(randomBytes(8)).digest('hex');
  const sealKey = over.sealKey ?? randomBytes(32);
  return { record, sealKey, value: idempotencyHeaderValue({ record, fingerprint: FINGERPRINT_OF_BODY, ttlSeconds: 86_400, sealKey }) };
}

const post = (url: string, payload: string, headers: Record<string, string> = {}, type = 'application/json') =>
  app.inject({ method: 'POST', url, headers: { 'content-type': type, [PRINCIPAL_HEADER]: caller, ...headers }, payload });
const withKey = (value: string) => ({ [IDEMPOTENCY_RECORD_HEADER]: value });
const replayed = (res: { headers: Record<string, unknown> }) => res.headers[IDEMPOTENCY_REPLAYED_HEADER] === 'true';
const runCount = async (projectId: string) =>
  Number((await u.db.pool.query('SELECT count(*) AS n FROM runs WHERE project_id = $1', [projectId])).rows[0].n);

const report = (title: string) =>
  JSON.stringify({
    suites: [
      {
        title: 'a.spec.ts',
        file: 'a.spec.ts',
        specs: [{ title, tests: [{ projectName: 'chromium', results: [{ status: 'passed', duration: 5 }] }] }],
      },
    ],
  });
const junit = (name: string) => `<testsuites><testsuite name="api"><testcase name="${name}" time="0.5"/></testsuite></testsuites>`;

describe("ingestion's Idempotency-Key record in the service", () => {
  it('a report uploaded again under the same key answers the first answer, marked replayed, and makes no second run', async () => {
    const p = newProject();
    const key = keyHeader();
    const first = await post(`/ingest/${p}/playwright`, report('checkout'), withKey(key.value));
    expect(first.statusCode).toBe(201);
    expect(replayed(first)).toBe(false);
    const again = await post(`/ingest/${p}/playwright`, report('checkout'), withKey(key.value));
    expect(again.statusCode).toBe(201);
    expect(replayed(again)).toBe(true);
    expect(again.json()).toEqual(first.json());
    expect(await runCount(p)).toBe(1);
    // The answer is sealed: the run's id is not in the table in clear.
    const { rows } = await u.db.pool.query('SELECT answer FROM idempotency_keys WHERE record = $1', [key.record]);
    expect(Buffer.from(rows[0].answer).includes(Buffer.from(first.json().runId))).toBe(false);
  });

  it('another body, another query or another credential under the key: 422 IDEMPOTENCY_KEY_REUSE, nothing written', async () => {
    const p = newProject();
    const key = keyHeader();
    expect((await post(`/ingest/${p}/junit?branch=main`, junit('lists'), withKey(key.value), 'application/xml')).statusCode).toBe(201);
    const otherBody = await post(`/ingest/${p}/junit?branch=main`, junit('creates'), withKey(key.value), 'application/xml');
    const otherQuery = await post(`/ingest/${p}/junit?branch=dev`, junit('lists'), withKey(key.value), 'application/xml');
    const otherCredential = await post(
      `/ingest/${p}/junit?branch=main`,
      junit('lists'),
      withKey(keyHeader({ record: key.record }).value),
      'application/xml',
    );
    for (const res of [otherBody, otherQuery, otherCredential]) {
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('IDEMPOTENCY_KEY_REUSE');
    }
    expect(await runCount(p)).toBe(1);
  });

  it("the streaming API's start, batch and finish replay their first answers (a batch's new results are not counted again)", async () => {
    const p = newProject();
    const startKey = keyHeader();
    const start = await post(`/ingest/${p}/runs`, '{"totalTests":1}', withKey(startKey.value));
    const startAgain = await post(`/ingest/${p}/runs`, '{"totalTests":1}', withKey(startKey.value));
    expect([start.statusCode, startAgain.statusCode, replayed(startAgain)]).toEqual([201, 201, true]);
    expect(startAgain.json()).toEqual(start.json());
    expect(await runCount(p)).toBe(1);

    const runId = start.json().runId as string;
    const batch = JSON.stringify({ results: [{ file: 'a.spec.ts', titlePath: ['a.spec.ts', 'one'], status: 'passed' }] });
    const batchKey = keyHeader();
    const results = await post(`/ingest/${p}/runs/${runId}/results`, batch, withKey(batchKey.value));
    const resultsAgain = await post(`/ingest/${p}/runs/${runId}/results`, batch, withKey(batchKey.value));
    expect(results.json()).toMatchObject({ accepted: 1, newResults: 1 });
    expect([replayed(resultsAgain), resultsAgain.json()]).toEqual([true, results.json()]);
    // Without the key the same batch is written again: idempotent per (test, retry), no new result.
    expect((await post(`/ingest/${p}/runs/${runId}/results`, batch)).json()).toMatchObject({ accepted: 1, newResults: 0 });

    const finishKey = keyHeader();
    const finish = await post(`/ingest/${p}/runs/${runId}/finish`, '{}', withKey(finishKey.value));
    const finishAgain = await post(`/ingest/${p}/runs/${runId}/finish`, '{}', withKey(finishKey.value));
    expect([finish.statusCode, finish.json().status]).toEqual([200, 'passed']);
    expect([replayed(finishAgain), finishAgain.json()]).toEqual([true, finish.json()]);
  });

  it('a refused upload records nothing: the same key then ingests the corrected report', async () => {
    const p = newProject();
    const key = keyHeader();
    const refused = await post(`/ingest/${p}/playwright`, '{"suites": [', withKey(key.value));
    expect(refused.statusCode).toBe(400);
    expect((await u.db.pool.query('SELECT 1 FROM idempotency_keys WHERE record = $1', [key.record])).rowCount).toBe(0);
    const created = await post(`/ingest/${p}/playwright`, report('fixed'), withKey(key.value));
    expect([created.statusCode, replayed(created)]).toEqual([201, false]);
    expect(await runCount(p)).toBe(1);
  });

  it('an attachment upload with no body at all is read as an empty one, with or without the key (404 for a run that does not exist)', async () => {
    const url = `/ingest/${newProject()}/runs/${'f'.repeat(24)}/artifacts?file=a.spec.ts&titlePath=one&name=shot`;
    for (const headers of [{}, withKey(keyHeader().value)]) {
      const res = await app.inject({ method: 'POST', url, headers: { [PRINCIPAL_HEADER]: caller, ...headers } });
      expect([res.statusCode, res.json().error.code]).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('without the header, or with one that is not the gateway’s, every upload makes a run', async () => {
    const p = newProject();
    await post(`/ingest/${p}/playwright`, report('one'));
    await post(`/ingest/${p}/playwright`, report('one'));
    await post(`/ingest/${p}/playwright`, report('one'), withKey('v1.not-a-record'));
    expect(await runCount(p)).toBe(3);
  });
});
