/**
 * The service bootstrap against real dependencies: gRPC health follows Postgres and Kafka (NOT_SERVING while
 * either is down, SERVING again when it returns), internal auth, and graceful shutdown that lets an in-flight
 * call finish; a call's transaction committed only while its caller waits. Postgres and Kafka here are private
 * copies, so stopping them disturbs no other test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Health, HealthCheckResponse_ServingStatus as Status } from '@assay/proto/grpc/health/v1/health_pb';
import { ManualTestingService } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { componentScript, freePorts, waitUntil } from '@assay/testkit';
import { withTransaction } from '@assay/db';
import { createRpcClient, formatCallers, parseCallers, startService, type RunningService } from '../src';

jest.setTimeout(120000);

const TOKEN = 'internal-test-credential-of-32-characters';

describe('service bootstrap', () => {
  let dataDir: string;
  let scriptEnv: NodeJS.ProcessEnv;
  let svc: RunningService;
  let migrationsDir: string;
  let releaseSlowCall!: () => void;
  let releaseCreate: (() => void) | undefined;
  let createSettled: Promise<unknown> | undefined;
  let releaseDetached: (() => void) | undefined;
  let detachedSettled: Promise<unknown> | undefined;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-health-'));
    fs.chmodSync(dataDir, 0o755);
    const [pgPort, kafkaPort, controllerPort] = await freePorts(3);
    scriptEnv = {
      ...process.env,
      ASSAY_DATA_DIR: dataDir,
      PG_PORT: String(pgPort),
      KAFKA_PORT: String(kafkaPort),
      KAFKA_CONTROLLER_PORT: String(controllerPort),
    };
    await Promise.all([componentScript('postgres', 'start', scriptEnv), componentScript('kafka', 'start', scriptEnv)]);
    migrationsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
    fs.writeFileSync(path.join(migrationsDir, '1795240743316_init.sql'), '-- Up Migration\nCREATE TABLE t (id int);\n');
    svc = await startService({
      name: 'probe',
      config: {
        LOG_LEVEL: 'silent',
        DATABASE_URL: `postgres://assay:assay@127.0.0.1:${pgPort}/assay`,
        DATABASE_POOL_SIZE: 2,
        KAFKA_BROKERS: [`127.0.0.1:${kafkaPort}`],
        INTERNAL_AUTH_TOKEN: TOKEN,
        INTERNAL_CALLERS: parseCallers(formatCallers({ test: TOKEN })),
        RPC_PORT: 0,
        HTTP_PORT: 0,
        BIND_HOST: '127.0.0.1',
        SHUTDOWN_GRACE_MS: 10000,
      },
      db: { schema: 'probe', migrationsDir },
      kafka: true,
      healthIntervalMs: 250,
      wire: (ctx) => ctx.pool,
      routes: (router, pool) =>
        router.service(ManualTestingService, {
          async listSuites() {
            await new Promise<void>((r) => (releaseSlowCall = r));
            return { suites: [] };
          },
          // A create whose transaction waits (for a lock, say) until the test lets it go.
          async createSuite(req) {
            const work = withTransaction(pool, async (c) => {
              await c.query('INSERT INTO t (id) VALUES ($1)', [Number(req.name)]);
              await new Promise<void>((r) => (releaseCreate = r));
            });
            createSettled = work.then(
              () => 'committed',
              (err: unknown) => err,
            );
            await work;
            return {};
          },
          // Answers at once, and leaves work running that commits after the answer.
          async getCase(req) {
            const gate = new Promise<void>((r) => (releaseDetached = r));
            detachedSettled = gate.then(() =>
              withTransaction(pool, (c) => c.query('INSERT INTO t (id) VALUES ($1)', [Number(req.caseRef)])),
            );
            return {};
          },
        }),
    });
  });

  afterAll(async () => {
    await svc?.close();
    await componentScript('kafka', 'stop', scriptEnv).catch(() => undefined);
    await componentScript('postgres', 'stop', scriptEnv).catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const health = () =>
    createRpcClient(Health, { baseUrl: `http://127.0.0.1:${svc.rpcPort}`, internalToken: 'not-needed-for-health', timeoutMs: 3000 });
  const status = async () => (await health().check({ service: '' })).status;
  const waitFor = (want: Status) =>
    waitUntil(
      async () => (await status()) === want,
      30000,
      () => `health never became ${Status[want]}`,
    );

  it('reports SERVING when Postgres and Kafka are reachable, also by service name, and NotFound for unknown names', async () => {
    expect(await status()).toBe(Status.SERVING);
    expect((await health().check({ service: 'probe' })).status).toBe(Status.SERVING);
    await expect(health().check({ service: 'nope' })).rejects.toMatchObject({ code: Code.NotFound });
    // Over the gRPC protocol too, as the kubelet's native probes ask (the RPC clients speak the Connect protocol).
    const grpc = createClient(Health, createGrpcTransport({ baseUrl: `http://127.0.0.1:${svc.rpcPort}` }));
    expect((await grpc.check({ service: 'liveness' })).status).toBe(Status.SERVING);
    expect((await grpc.check({ service: '' })).status).toBe(Status.SERVING);
    const ready = await fetch(`http://127.0.0.1:${svc.httpPort}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('serves Prometheus metrics on the HTTP port', async () => {
    const res = await fetch(`http://127.0.0.1:${svc.httpPort}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('process_cpu_user_seconds_total');
  });

  it('refuses calls without the internal token', async () => {
    const wrong = createRpcClient(ManualTestingService, { baseUrl: `http://127.0.0.1:${svc.rpcPort}`, internalToken: 'wrong' });
    await expect(wrong.listSuites({})).rejects.toMatchObject({ code: Code.Unauthenticated });
  });

  it('reports NOT_SERVING while Postgres is stopped and SERVING again after it returns', async () => {
    await componentScript('postgres', 'stop', scriptEnv);
    await waitFor(Status.NOT_SERVING);
    // The liveness name stays SERVING: an outage takes pods out of rotation without restarting them.
    expect((await health().check({ service: 'liveness' })).status).toBe(Status.SERVING);
    const ready = await fetch(`http://127.0.0.1:${svc.httpPort}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'NOT_SERVING', dependencies: { postgres: false } });
    await componentScript('postgres', 'start', scriptEnv);
    await waitFor(Status.SERVING);
  });

  it('reports NOT_SERVING while the Kafka broker is stopped and SERVING again after it returns', async () => {
    await componentScript('kafka', 'stop', scriptEnv);
    await waitFor(Status.NOT_SERVING);
    await componentScript('kafka', 'start', scriptEnv);
    await waitFor(Status.SERVING);
  });

  it("commits a call's transaction only while its caller waits; work left running after the answer commits", async () => {
    const client = (timeoutMs: number) =>
      createRpcClient(ManualTestingService, { baseUrl: `http://127.0.0.1:${svc.rpcPort}`, internalToken: TOKEN, timeoutMs });
    const stored = async (id: number) => (await svc.ctx.pool.query('SELECT count(*) AS n FROM t WHERE id = $1', [id])).rows[0].n;
    const started = () =>
      waitUntil(
        async () => releaseCreate !== undefined,
        5000,
        () => 'the create never started',
      );

    // Its deadline passes while the transaction waits: the caller gets DeadlineExceeded, and the transaction is
    // rolled back when it gets to its commit.
    releaseCreate = undefined;
    await expect(client(1000).createSuite({ name: '1' })).rejects.toMatchObject({ code: Code.DeadlineExceeded });
    await started();
    releaseCreate!();
    expect(await createSettled).toMatchObject({ reason: 'SERVICE_UNAVAILABLE' });
    expect(await stored(1)).toBe(0);

    // Let go in time: committed and answered.
    releaseCreate = undefined;
    const inTime = client(20000).createSuite({ name: '2' });
    await started();
    releaseCreate!();
    await expect(inTime).resolves.toBeDefined();
    expect(await createSettled).toBe('committed');
    expect(await stored(2)).toBe(1);

    // Work a call leaves running is its own once the call is answered, even past the call's deadline.
    await client(1000).getCase({ caseRef: '3' });
    await new Promise((r) => setTimeout(r, 1100));
    releaseDetached!();
    await detachedSettled;
    expect(await stored(3)).toBe(1);
  });

  it('drains on shutdown: NOT_SERVING, the in-flight call completes, new calls are refused', async () => {
    const client = createRpcClient(ManualTestingService, {
      baseUrl: `http://127.0.0.1:${svc.rpcPort}`,
      internalToken: TOKEN,
      timeoutMs: 20000,
    });
    const inFlight = client.listSuites({});
    await waitUntil(
      async () => releaseSlowCall !== undefined,
      5000,
      () => 'slow call never started',
    );
    const watcher = health();
    const closing = svc.close();
    await new Promise((r) => setTimeout(r, 200));
    // Draining: the process reports NOT_SERVING while the call is still running.
    expect(svc.ctx.health.isServing()).toBe(false);
    releaseSlowCall();
    await expect(inFlight).resolves.toMatchObject({ suites: [] });
    await closing;
    await expect(watcher.check({ service: '' })).rejects.toBeInstanceOf(ConnectError);
  });
});
