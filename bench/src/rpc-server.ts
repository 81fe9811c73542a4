/**
 * The server side of the RPC transport benchmark (bench/src/rpc.ts), a child process: `RunsService.ListRuns`
 * answering `runs_json` of RPC_BENCH_BYTES bytes on two h2c ports, one with HTTP/2's default receive windows and one
 * with the service kit's (server.ts). It reports its port numbers, then its CPU usage whenever asked.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { RPC_CONNECTION_WINDOW, RPC_STREAM_WINDOW } from '@assay/service-kit';

const body = Buffer.alloc(Number(process.env.RPC_BENCH_BYTES ?? 45000), 'x');
const handler = connectNodeAdapter({
  routes: (router) => router.service(RunsService, { listRuns: async () => ({ runsJson: body, page: { total: 200n } }) }),
});
const before = http2.createServer({}, handler);
const now = http2.createServer({ settings: { initialWindowSize: RPC_STREAM_WINDOW } }, handler);
now.on('session', (s) => s.setLocalWindowSize(RPC_CONNECTION_WINDOW));
const listen = (s: http2.Http2Server) =>
  new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));

void (async () => {
  const ports = [await listen(before), await listen(now)];
  process.send!(ports);
  process.on('message', () => process.send!(process.cpuUsage()));
  process.once('disconnect', () => process.exit(0));
})();
