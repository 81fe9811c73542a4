/**
 * What one RPC costs in CPU, client and server, by transport: gRPC with HTTP/2's default receive windows (the
 * service kit before issue 19) against the service kit's client (`createRpcClient`: the Connect protocol, wide
 * windows) and server settings. One `ListRuns` answering RPC_BENCH_BYTES (default 45,000, a page of 50 runs) bytes
 * of `runs_json` at BENCH_CONCURRENCY (16) calls in flight; the two alternate in batches, so the machine's other
 * load falls on both alike. No database, no interceptors on the server: the transport alone.
 *
 *   make bench BENCH=rpc      (BENCH_ROUNDS=10 batches of 300 calls each)
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { asPrincipal, createRpcClient, internalAuthClientInterceptor } from '@assay/service-kit';

const TOKEN = 'rpc-benchmark-credential-of-32-characters';

export async function run(): Promise<void> {
  const bytes = Number(process.env.RPC_BENCH_BYTES ?? 45000);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
  const batch = 300;
  const server = fork(path.join(__dirname, 'rpc-server.js'), { env: { PATH: process.env.PATH, RPC_BENCH_BYTES: String(bytes) } });
  try {
    const [beforePort, nowPort] = await new Promise<number[]>((resolve) => server.once('message', (m) => resolve(m as number[])));
    const serverCpu = () =>
      new Promise<NodeJS.CpuUsage>((resolve) => {
        server.once('message', (m) => resolve(m as NodeJS.CpuUsage));
        server.send('cpu');
      });
    const clients: Record<string, Client<typeof RunsService>> = {
      'gRPC, default windows': createClient(
        RunsService,
        createGrpcTransport({
          baseUrl: `http://127.0.0.1:${beforePort}`,
          interceptors: [internalAuthClientInterceptor(TOKEN)],
          acceptCompression: [],
          pingIntervalMs: 10000,
        }),
      ),
      'createRpcClient (Connect, wide windows)': createRpcClient(RunsService, {
        baseUrl: `http://127.0.0.1:${nowPort}`,
        internalToken: TOKEN,
      }),
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
    const calls = async (client: Client<typeof RunsService>, n: number) => {
      let started = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (started++ < n) {
            const res = await client.listRuns({ projectId: 'p', json: true }, options);
            if (res.runsJson.length !== bytes) throw new Error(`answer of ${res.runsJson.length} bytes`);
          }
        }),
      );
    };
    const names = Object.keys(clients);
    for (const name of names) await calls(clients[name]!, 1500); // warm-up
    const used = Object.fromEntries(names.map((n) => [n, { server: 0, client: 0, calls: 0 }]));
    const micros = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => b.user - a.user + b.system - a.system;
    for (let r = 0; r < rounds; r++) {
      for (const name of r % 2 ? [...names].reverse() : names) {
        const [s0, c0] = [await serverCpu(), process.cpuUsage()];
        await calls(clients[name]!, batch);
        const [s1, c1] = [await serverCpu(), process.cpuUsage()];
        used[name]!.server += micros(s0, s1);
        used[name]!.client += micros(c0, c1);
        used[name]!.calls += batch;
      }
    }
    console.log(`ListRuns answering ${bytes} bytes, ${concurrency} calls in flight, ${rounds} alternating batches of ${batch}`);
    console.log('| transport | server CPU ms/call | client CPU ms/call |');
    console.log('|---|---|---|');
    for (const name of names) {
      const u = used[name]!;
      console.log(`| ${name} | ${(u.server / 1000 / u.calls).toFixed(3)} | ${(u.client / 1000 / u.calls).toFixed(3)} |`);
    }
  } finally {
    server.disconnect();
  }
}
