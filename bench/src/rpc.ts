/**
 * What one internal call costs, client and server, by transport (issue 19): one `ListRuns` answering
 * RPC_BENCH_BYTES (default 45,000, a page of 50 runs) bytes of `runs_json`, no database and no interceptors on the
 * server, the transport alone:
 *
 * - gRPC with HTTP/2's default receive windows (the service kit before issue 19);
 * - Connect's transport and handler with the kit's wide windows (the kit before its own unary path);
 * - the kit's client (`createRpcClient`: unary-transport.ts) and server (unary-handler.ts in front of Connect's).
 *
 * CPU ms a call of both processes at BENCH_CONCURRENCY (16) calls in flight, the three taking turns in batches so
 * the machine's other load falls on all alike; then the latency of one call at a time (p50, p99).
 *
 *   make bench BENCH=rpc      (BENCH_ROUNDS=10 batches of 300 calls each)
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import {
  asPrincipal,
  createRpcClient,
  internalAuthClientInterceptor,
  RPC_STREAM_WINDOW,
  WideWindowSessionManager,
} from '@assay/service-kit';
import { percentile } from './lib';
import { addFigure } from './summary';

const TOKEN = 'rpc-benchmark-credential-of-32-characters';

export async function run(): Promise<void> {
  const bytes = Number(process.env.RPC_BENCH_BYTES ?? 45000);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
  const batch = 300;
  const server = fork(path.join(__dirname, 'rpc-server.js'), { env: { PATH: process.env.PATH, RPC_BENCH_BYTES: String(bytes) } });
  try {
    const [grpcPort, connectPort, kitPort] = await new Promise<number[]>((resolve) =>
      server.once('message', (m) => resolve(m as number[])),
    );
    const serverCpu = () =>
      new Promise<NodeJS.CpuUsage>((resolve) => {
        server.once('message', (m) => resolve(m as NodeJS.CpuUsage));
        server.send('cpu');
      });
    const connectUrl = `http://127.0.0.1:${connectPort}`;
    const clients: Record<string, Client<typeof RunsService>> = {
      'gRPC, default windows': createClient(
        RunsService,
        createGrpcTransport({
          baseUrl: `http://127.0.0.1:${grpcPort}`,
          interceptors: [internalAuthClientInterceptor(TOKEN)],
          acceptCompression: [],
          pingIntervalMs: 10000,
        }),
      ),
      "Connect's transport and handler, wide windows": createClient(
        RunsService,
        createConnectTransport({
          baseUrl: connectUrl,
          httpVersion: '2',
          useBinaryFormat: true,
          sessionManager: new WideWindowSessionManager(
            connectUrl,
            { pingIntervalMs: 10000 },
            { settings: { initialWindowSize: RPC_STREAM_WINDOW } },
          ),
          interceptors: [internalAuthClientInterceptor(TOKEN)],
          acceptCompression: [],
        }),
      ),
      "the kit's client and server": createRpcClient(RunsService, { baseUrl: `http://127.0.0.1:${kitPort}`, internalToken: TOKEN }),
    };
    const options = asPrincipal({
      tokenId: 't',
      tokenType: 'pat',
      userId: 'u',
      userName: 'U',
      userEmail: 'u@x.test',
      orgId: 'o',
      role: 'owner',
    });
    const call = async (client: Client<typeof RunsService>) => {
      const res = await client.listRuns({ projectId: 'p', json: true }, options);
      if (res.runsJson.length !== bytes) throw new Error(`answer of ${res.runsJson.length} bytes`);
    };
    const calls = async (client: Client<typeof RunsService>, n: number, inFlight = concurrency) => {
      let started = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (started++ < n) await call(client);
        }),
      );
    };
    const names = Object.keys(clients);
    for (const name of names) await calls(clients[name]!, 1500); // warm-up
    const used = Object.fromEntries(names.map((n) => [n, { server: 0, client: 0, calls: 0, latencies: [] as number[] }]));
    const micros = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => b.user - a.user + b.system - a.system;
    for (let r = 0; r < rounds; r++) {
      for (const name of r % 2 ? [...names].reverse() : names) {
        const [s0, c0] = [await serverCpu(), process.cpuUsage()];
        await calls(clients[name]!, batch);
        const [s1, c1] = [await serverCpu(), process.cpuUsage()];
        used[name]!.server += micros(s0, s1);
        used[name]!.client += micros(c0, c1);
        used[name]!.calls += batch;
        // One call at a time: the latency a request through the gateway pays for its hop.
        for (let i = 0; i < batch; i++) {
          const t0 = performance.now();
          await call(clients[name]!);
          used[name]!.latencies.push(performance.now() - t0);
        }
      }
    }
    console.log(
      `ListRuns answering ${bytes} bytes; CPU at ${concurrency} calls in flight, latency at one; ${rounds} alternating batches of ${batch}`,
    );
    console.log('| transport | server CPU ms/call | client CPU ms/call | p50, one in flight | p99 |');
    console.log('|---|---|---|---|---|');
    const ms = (v: number) => `${v.toFixed(3)} ms`;
    for (const name of names) {
      const u = used[name]!;
      const sorted = u.latencies.sort((a, b) => a - b);
      const [server, client] = [u.server / 1000 / u.calls, u.client / 1000 / u.calls];
      console.log(
        `| ${name} | ${server.toFixed(3)} | ${client.toFixed(3)} | ${ms(percentile(sorted, 50))} | ${ms(percentile(sorted, 99))} |`,
      );
    }
    const [connect, kit] = [used[names[1]!]!, used[names[2]!]!];
    const cpu = (u: typeof kit) => (u.server + u.client) / 1000 / u.calls;
    const p50 = (u: typeof kit) => percentile(u.latencies, 50);
    addFigure({
      bench: 'rpc',
      figure: "one call: CPU of both ends, ms (p50 at one in flight), the kit's path vs Connect's",
      assay: `${cpu(kit).toFixed(3)} (${ms(p50(kit))})`,
      baseline: `${cpu(connect).toFixed(3)} (${ms(p50(connect))})`,
      ratio: `${(cpu(kit) / cpu(connect)).toFixed(2)}× (${(p50(kit) / p50(connect)).toFixed(2)}×)`,
      goal: 'none (the hop of a read through the gateway)',
    });
  } finally {
    server.disconnect();
  }
}
