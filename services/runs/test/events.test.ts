/**
 * Lifecycle events through the outbox against a PRIVATE Kafka broker and a private copy of the runs service on
 * its own database (so stopping the broker disturbs no other test): RUN_STARTED/RUN_FINISHED as protobuf with
 * key = run id, in order; a run finished while Kafka is down is relayed once the broker returns, exactly once.
 * Also: links to manual cases through a stub ManualTestingService (the declared LinkAutomatedTest contract),
 * and the sweeper that turns a run that stopped reporting into `incomplete`.
 */
import fs from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { fromBinary } from '@bufbuild/protobuf';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { RunEventType, RunLifecycleEventSchema, RunStatus, type RunLifecycleEvent } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { ManualTestingService, type LinkAutomatedTestRequest } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { createKafkaBus, Topics, type EventBus, type EventConsumer } from '@assay/events';
import { createLogger } from '@assay/logger';
import { encodePrincipal, formatCallers, PRINCIPAL_HEADER, startService, type RunningService } from '@assay/service-kit';
import { componentScript, createDatabase, freePorts, testSystem, waitUntil } from '@assay/testkit';
import { loadRunsConfig, type RunsConfig } from '../src/config';
import { runsService } from '../src/service';

jest.setTimeout(240000);
const TOKEN = 'events-test-credential-of-32-characters';
const PROJECT = 'p'.repeat(24);
const principal = encodePrincipal({
  tokenId: 't1',
  tokenType: 'api_key',
  userId: null,
  userName: null,
  userEmail: null,
  orgId: 'o'.repeat(24),
  role: null,
});

describe('runs lifecycle events (outbox → Kafka), manual links and the sweeper', () => {
  let dataDir: string;
  let scriptEnv: NodeJS.ProcessEnv;
  let svc: RunningService<RunsConfig>;
  let bus: EventBus;
  let consumer: EventConsumer;
  let stub: http2.Http2Server;
  const links: LinkAutomatedTestRequest[] = [];
  const stubSessions = new Set<http2.ServerHttp2Session>();
  const events: RunLifecycleEvent[] = [];

  const post = async (p: string, body: unknown) => {
    const res = await fetch(`http://127.0.0.1:${svc.httpPort}/ingest/${PROJECT}${p}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, [PRINCIPAL_HEADER]: principal, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const of = (runId: string, type: RunEventType) => events.filter((e) => e.run?.id === runId && e.type === type);

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-runs-events-'));
    fs.chmodSync(dataDir, 0o755);
    const [kafkaPort, controllerPort, rpcPort, httpPort] = await freePorts(4);
    scriptEnv = { ...process.env, ASSAY_DATA_DIR: dataDir, KAFKA_PORT: String(kafkaPort), KAFKA_CONTROLLER_PORT: String(controllerPort) };
    const [databaseUrl] = await Promise.all([
      createDatabase(testSystem().infra.DATABASE_URL, 'assay_runs_events'),
      componentScript('kafka', 'start', scriptEnv),
    ]);

    stub = http2.createServer(
      connectNodeAdapter({
        routes: (router) =>
          router.service(ManualTestingService, {
            async linkAutomatedTest(req) {
              links.push(req);
              return { linked: true, caseId: 'c'.repeat(24), created: true };
            },
          }),
      }),
    );
    stub.on('session', (session) => stubSessions.add(session));
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', () => resolve()));

    const config = loadRunsConfig({
      DATABASE_URL: databaseUrl,
      KAFKA_BROKERS: `127.0.0.1:${kafkaPort}`,
      INTERNAL_AUTH_TOKEN: TOKEN,
      INTERNAL_CALLERS: formatCallers({ test: TOKEN }),
      RPC_PORT: String(rpcPort),
      HTTP_PORT: String(httpPort),
      LOG_LEVEL: 'silent',
      MANUAL_TESTING_URL: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
      RUN_INACTIVITY_TIMEOUT_SECONDS: '3',
      OUTBOX_POLL_INTERVAL_MS: '100',
    });
    svc = await startService(runsService(config));
    bus = createKafkaBus({ brokers: [`127.0.0.1:${kafkaPort}`], clientId: 'events-test', logger: createLogger('test', 'silent') });
    await bus.ensureTopics([{ topic: Topics.RUN_LIFECYCLE, numPartitions: 3 }]);
    consumer = bus.consumer({ groupId: `g-${randomBytes(4).toString('hex')}`, topics: [Topics.RUN_LIFECYCLE] });
    await consumer.start(async (e) => {
      const event = fromBinary(RunLifecycleEventSchema, e.value);
      expect(e.key).toBe(event.run?.id);
      events.push(event);
    });
  });

  afterAll(async () => {
    await consumer?.stop().catch(() => undefined);
    await bus?.close();
    await svc?.close();
    // Closing the stub's sessions also ends the runs service's client session (and its ping timer).
    for (const session of stubSessions) session.destroy();
    stub?.close();
    await componentScript('kafka', 'stop', scriptEnv).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('publishes RUN_STARTED and RUN_FINISHED (protobuf, key = run id) in order, and links annotated tests to manual cases', async () => {
    const started = await post('/runs', { metadata: { git: { branch: 'main' } } });
    expect(started.status).toBe(201);
    const runId = started.body.runId;
    const batch = await post(`/runs/${runId}/results`, {
      results: [
        {
          file: 'a.spec.ts',
          titlePath: ['links'],
          status: 'passed',
          duration: 5,
          annotations: [{ type: 'testcase', description: 'TC-7' }],
        },
      ],
    });
    expect(batch.status).toBe(200);
    expect((await post(`/runs/${runId}/finish`, {})).body.status).toBe('passed');
    await waitUntil(
      async () => of(runId, RunEventType.RUN_FINISHED).length === 1,
      60000,
      () => 'RUN_FINISHED never arrived',
    );
    const forRun = events.filter((e) => e.run?.id === runId);
    expect(forRun.map((e) => e.type)).toEqual([RunEventType.RUN_STARTED, RunEventType.RUN_FINISHED]);
    const finished = forRun[1]!;
    expect(finished).toEqual(
      expect.objectContaining({ projectId: PROJECT, orgId: 'o'.repeat(24), eventId: expect.stringMatching(/^[0-9a-f]{24}$/) }),
    );
    expect(finished.run).toEqual(
      expect.objectContaining({ id: runId, counter: 1n, status: RunStatus.PASSED, url: expect.stringContaining(runId) }),
    );
    expect(finished.run?.testStats).toEqual(expect.objectContaining({ total: 1, passed: 1, totalAttempts: 1 }));

    await waitUntil(
      async () => links.length > 0,
      30000,
      () => 'LinkAutomatedTest was never called',
    );
    expect(links[0]).toEqual(
      expect.objectContaining({
        projectId: PROJECT,
        caseRef: 'TC-7',
        source: 'auto_created',
        fullTitle: 'links',
        testId: expect.stringMatching(/^[0-9a-f]{24}$/),
      }),
    );
  });

  it('keeps RUN_FINISHED in the outbox while Kafka is down and delivers it exactly once when it returns', async () => {
    const started = await post('/runs', {});
    const runId = started.body.runId;
    await waitUntil(
      async () => of(runId, RunEventType.RUN_STARTED).length === 1,
      60000,
      () => 'RUN_STARTED never arrived',
    );

    await componentScript('kafka', 'stop', scriptEnv);
    const finished = await post(`/runs/${runId}/finish`, { status: 'failed' });
    expect(finished.status).toBe(200); // ingestion does not depend on the broker
    const pending = async () =>
      (await svc.ctx.pool.query(`SELECT count(*)::int AS n FROM outbox WHERE run_id = $1 AND published_at IS NULL`, [runId])).rows[0].n;
    await new Promise((r) => setTimeout(r, 2000));
    expect(await pending()).toBe(1);
    expect(of(runId, RunEventType.RUN_FINISHED)).toHaveLength(0);

    await componentScript('kafka', 'start', scriptEnv);
    await waitUntil(
      async () => of(runId, RunEventType.RUN_FINISHED).length > 0,
      120000,
      () => 'RUN_FINISHED never arrived after the restart',
    );
    await new Promise((r) => setTimeout(r, 3000));
    expect(of(runId, RunEventType.RUN_FINISHED)).toHaveLength(1);
    expect(of(runId, RunEventType.RUN_FINISHED)[0]!.run?.status).toBe(RunStatus.FAILED);
    expect(await pending()).toBe(0);
  });

  it('sweeps a run that stopped reporting to incomplete and publishes RUN_FINISHED', async () => {
    const started = await post('/runs', {});
    const runId = started.body.runId;
    await post(`/runs/${runId}/results`, { results: [{ file: 'b.spec.ts', titlePath: ['slow'], status: 'passed', duration: 1 }] });
    await waitUntil(
      async () => of(runId, RunEventType.RUN_FINISHED).length === 1,
      60000,
      () => 'the run was never swept',
    );
    const event = of(runId, RunEventType.RUN_FINISHED)[0]!;
    expect(event.run?.status).toBe(RunStatus.INCOMPLETE);
    expect(event.run?.testStats?.total).toBe(1);
    expect((await post(`/runs/${runId}/results`, { results: [] })).status).toBe(409);
  });
});
