/**
 * Internal calls dealt over every replica a service's name resolves to (replicas.ts, through createRpcClient):
 * real h2c servers on 127.0.0.1, 127.0.0.2 and 127.0.0.3 with one port, as the pods behind a headless Service
 * are; only the name's lookup is given (the addresses a DNS server would answer).
 */
import { fork } from 'node:child_process';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import { Code, ConnectError, type ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { Registry } from 'prom-client';
import { createLogger } from '@assay/logger';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { createRpcClient, observeReplicas, type Lookup } from '../../src';
import { unaryHandler } from '../../src/unary-handler';

const TOKEN = 'replicas-test-credential-32-characters';
const HOSTS = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];

interface Replica {
  host: string;
  calls: number;
  close(): Promise<void>;
}

/**
 * A server answering `listRuns` with its own address, listening on host:port. Closing it is the kit's drain: no new
 * connection, a GOAWAY on each open one (server.ts).
 */
async function startReplica(host: string, port: number): Promise<Replica & { port: number }> {
  const replica = { host, calls: 0 };
  const routes = (router: ConnectRouter) =>
    router.service(RunsService, {
      listRuns: () => {
        replica.calls++;
        return { runsJson: Buffer.from(host) };
      },
    });
  const shutdownSignal = new AbortController().signal;
  const fast = unaryHandler({ interceptors: [], readMaxBytes: 1 << 20, shutdownSignal });
  const connect = connectNodeAdapter({ routes: fast.routes(routes), shutdownSignal });
  const server = http2.createServer({}, (req, res) => {
    if (!fast.handle(req, res)) connect(req, res);
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => sessions.add(s));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return Object.assign(replica, {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        for (const s of sessions) s.close();
      }),
  });
}

/** Three replicas on one port (the first on a free one, the others on the same port of their own address). */
async function startReplicas(): Promise<{ port: number; replicas: Replica[] }> {
  for (let attempt = 0; ; attempt++) {
    const first = await startReplica(HOSTS[0]!, 0);
    try {
      const rest = await Promise.all(HOSTS.slice(1).map((h) => startReplica(h, first.port)));
      return { port: first.port, replicas: [first, ...rest] };
    } catch (err) {
      await first.close();
      if (attempt >= 3) throw err;
    }
  }
}

describe('internal calls over the replicas a name resolves to', () => {
  let port: number;
  let replicas: Replica[];
  let answer: string[];
  let lookups: string[];
  const lookup: Lookup = async (host) => {
    lookups.push(host);
    if (answer.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer;
  };
  const client = (resolveEveryMs?: number) =>
    createRpcClient(RunsService, { baseUrl: `http://runs.assay.svc:${port}`, internalToken: TOKEN, lookup, resolveEveryMs });
  const callsOf = () => replicas.map((r) => r.calls);
  const answeredBy = async (c: ReturnType<typeof client>) => Buffer.from((await c.listRuns({ projectId: 'p' })).runsJson).toString();

  beforeEach(async () => {
    ({ port, replicas } = await startReplicas());
    answer = HOSTS.slice(0, 2);
    lookups = [];
  });
  afterEach(async () => {
    await Promise.all(replicas.map((r) => r.close()));
  });

  it('deals the calls round robin over every address of the name, looked up once', async () => {
    const c = client();
    const first = await answeredBy(c);
    for (let i = 0; i < 9; i++) await answeredBy(c);
    expect(callsOf()).toEqual([5, 5, 0]);
    // Calls in flight together are dealt too.
    await Promise.all(Array.from({ length: 20 }, () => answeredBy(c)));
    expect(callsOf()).toEqual([15, 15, 0]);
    expect(lookups).toEqual(['runs.assay.svc']);
    expect(HOSTS.slice(0, 2)).toContain(first);
  });

  it('a replica that goes away: its calls go to the others without an error, and the name is looked up again', async () => {
    const c = client();
    await Promise.all(Array.from({ length: 4 }, () => answeredBy(c)));
    expect(callsOf()).toEqual([2, 2, 0]);
    await replicas[1]!.close();
    answer = [HOSTS[0]!];
    // The GOAWAY read, and past the least time between lookups (a second; the next one by age is 10 s away).
    await new Promise((r) => setTimeout(r, 1100));
    const by = await Promise.all(Array.from({ length: 10 }, () => answeredBy(c)));
    expect(by).toEqual(Array(10).fill(HOSTS[0]));
    expect(lookups.length).toBe(2);
  });

  it('a replica whose connection failed, still listed: out of the rotation, and back in once it answers again', async () => {
    const c = client();
    await Promise.all(Array.from({ length: 4 }, () => answeredBy(c)));
    await replicas[1]!.close();
    await new Promise((r) => setTimeout(r, 20)); // the GOAWAY read
    // The name still lists it (a pod whose endpoint is not updated yet): no call fails, none goes there.
    const by = await Promise.all(Array.from({ length: 8 }, () => answeredBy(c)));
    expect(by).toEqual(Array(8).fill(HOSTS[0]));
    replicas[1] = await startReplica(HOSTS[1]!, port);
    // Reconnected in the background (after half a second, then a second): dealt calls again.
    await new Promise((r) => setTimeout(r, 700));
    const after = await Promise.all(Array.from({ length: 8 }, () => answeredBy(c)));
    expect(after.filter((h) => h === HOSTS[1])).toHaveLength(4);
  });

  it('a replica added behind the name gets calls after the next lookup', async () => {
    const c = client(50);
    for (let i = 0; i < 4; i++) await answeredBy(c);
    expect(callsOf()).toEqual([2, 2, 0]);
    answer = HOSTS;
    await new Promise((r) => setTimeout(r, 60));
    await answeredBy(c); // starts the lookup, and goes to a replica of the old list
    for (let i = 0; i < 30; i++) await answeredBy(c);
    expect(replicas[2]!.calls).toBeGreaterThanOrEqual(9);
    expect(lookups.length).toBeGreaterThanOrEqual(2);
  });

  it('a lookup that fails later keeps the addresses it had', async () => {
    const c = client(20);
    await answeredBy(c);
    answer = [];
    await new Promise((r) => setTimeout(r, 30));
    for (let i = 0; i < 6; i++) await answeredBy(c);
    expect(callsOf().reduce((a, b) => a + b)).toBe(7);
    expect(lookups.length).toBeGreaterThanOrEqual(2);
  });

  it('a name that resolves to nothing fails the call as UNAVAILABLE, with the lookup error as its cause, until it resolves', async () => {
    answer = [];
    const c = client();
    const err = await c.listRuns({ projectId: 'p' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.Unavailable);
    expect(((err as ConnectError).cause as { code?: string }).code).toBe('ENOTFOUND');
    // The next call looks the name up again.
    answer = [HOSTS[1]!];
    await expect(answeredBy(c)).resolves.toBe(HOSTS[1]);
  });

  it('every replica gone: the refused connection is the error; back once one is there again', async () => {
    const c = client();
    await answeredBy(c);
    await Promise.all(replicas.map((r) => r.close()));
    await new Promise((r) => setTimeout(r, 20));
    const err = await c.listRuns({ projectId: 'p' }).catch((e: unknown) => e);
    // Its code is UNAVAILABLE in a process; under jest Node's errors come from another realm (unary-transport.test.ts).
    expect(err).toBeInstanceOf(ConnectError);
    expect(((err as ConnectError).cause as { code?: string }).code).toBe('ECONNREFUSED');
    replicas[0] = await startReplica(HOSTS[0]!, port);
    // Whichever address the rotation is at, each call finds the one that is back.
    for (let i = 0; i < 4; i++) await expect(answeredBy(c)).resolves.toBe(HOSTS[0]);
  });

  it('a replica that does not answer connection attempts (its node gone): after the connect timeout, the others', async () => {
    // 127.0.0.3's port belongs to a stopped process with a full accept queue: the kernel drops new connections' SYNs.
    await replicas[2]!.close();
    const child = fork(
      '-e',
      [`require('net').createServer().listen({ port: ${port}, host: '127.0.0.3', backlog: 1 }, () => process.send('up'))`],
      {
        execArgv: [],
      },
    );
    const held: net.Socket[] = [];
    try {
      await new Promise((r) => child.once('message', r));
      process.kill(child.pid!, 'SIGSTOP');
      for (let i = 0; i < 3; i++) held.push(net.connect(port, '127.0.0.3').on('error', () => undefined));
      await new Promise((r) => setTimeout(r, 100));
      answer = [HOSTS[2]!, HOSTS[0]!];
      const c = createRpcClient(RunsService, {
        baseUrl: `http://runs.assay.svc:${port}`,
        internalToken: TOKEN,
        lookup,
        connectTimeoutMs: 300,
      });
      const started = performance.now();
      const by = await Promise.all(Array.from({ length: 6 }, () => answeredBy(c)));
      expect(by).toEqual(Array(6).fill(HOSTS[0]));
      expect(performance.now() - started).toBeLessThan(2000);
      // Left out now: the next calls do not wait.
      const again = performance.now();
      for (let i = 0; i < 4; i++) expect(await answeredBy(c)).toBe(HOSTS[0]);
      expect(performance.now() - again).toBeLessThan(250);
    } finally {
      for (const h of held) h.destroy();
      child.kill('SIGKILL');
    }
  });

  it('a connection opened while the event loop was busy past the connect timeout is kept (the timer runs first)', async () => {
    const c = createRpcClient(RunsService, { baseUrl: `http://127.0.0.1:${port}`, internalToken: TOKEN, connectTimeoutMs: 50 });
    const call = c.listRuns({ projectId: 'p' });
    for (let i = 0; i < 5; i++) await Promise.resolve(); // the connection is being opened
    const until = performance.now() + 200;
    while (performance.now() < until); // a busy process: the connection opens, its timer falls due
    expect(Buffer.from((await call).runsJson).toString()).toBe(HOSTS[0]);
  });

  it('every change of the rotation is logged and counted (observeReplicas), until unsubscribed', async () => {
    const lines: { level: number; fields: Record<string, unknown>; msg: string }[] = [];
    const logger = createLogger('test', 'info', {
      hooks: {
        // Kept here, not written.
        logMethod(args, _method, level) {
          lines.push({ level, fields: args[0] as Record<string, unknown>, msg: args[1] as string });
        },
      },
    });
    const registry = new Registry();
    const unobserve = observeReplicas(logger, registry);
    const counts = async () =>
      Object.fromEntries(
        (await registry.getSingleMetric('rpc_client_replica_changes_total')!.get()).values.map((v) => [v.labels.change, v.value]),
      );
    const target = `runs.assay.svc:${port}`;
    try {
      const c = client(20);
      await Promise.all(Array.from({ length: 4 }, () => answeredBy(c)));
      expect(lines.map((l) => [l.fields.address, l.fields.change, l.fields.live, l.fields.members])).toEqual([
        [HOSTS[0], 'added', 2, 2],
        [HOSTS[1], 'added', 2, 2],
      ]);
      await replicas[1]!.close();
      await new Promise((r) => setTimeout(r, 20));
      for (let i = 0; i < 4; i++) await answeredBy(c);
      const down = lines.filter((l) => l.fields.change === 'down');
      expect(down).toHaveLength(1);
      expect(down[0]).toMatchObject({ level: 40, fields: { target, address: HOSTS[1], live: 1, members: 2 } });
      expect(String(down[0]!.fields.error)).toContain('ECONNREFUSED');
      replicas[1] = await startReplica(HOSTS[1]!, port);
      await new Promise((r) => setTimeout(r, 700));
      expect(lines.filter((l) => l.fields.change === 'up')).toEqual([
        { level: 30, fields: expect.objectContaining({ address: HOSTS[1], live: 2 }), msg: 'service replica back in the rotation' },
      ]);
      answer = [HOSTS[0]!];
      await answeredBy(c); // starts the lookup
      await new Promise((r) => setTimeout(r, 20));
      expect(lines.at(-1)!.fields).toMatchObject({ address: HOSTS[1], change: 'removed', live: 1, members: 1 });
      expect(await counts()).toEqual({ added: 2, down: 1, up: 1, removed: 1 });
      unobserve();
      const looked = lookups.length;
      answer = HOSTS; // two addresses added by the next lookup, not counted
      await new Promise((r) => setTimeout(r, 30));
      await answeredBy(c);
      await new Promise((r) => setTimeout(r, 20));
      expect(lookups.length).toBeGreaterThan(looked);
      expect(await counts()).toEqual({ added: 2, down: 1, up: 1, removed: 1 });
    } finally {
      unobserve();
    }
  });

  it('a URL naming an address keeps one connection and looks nothing up', async () => {
    const c = createRpcClient(RunsService, { baseUrl: `http://127.0.0.2:${port}`, internalToken: TOKEN, lookup });
    for (let i = 0; i < 4; i++) expect(await answeredBy(c)).toBe('127.0.0.2');
    expect(lookups).toEqual([]);
  });
});
