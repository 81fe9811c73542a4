/**
 * The server side of the RPC transport benchmark (bench/src/rpc.ts), a child process: `RunsService.ListRuns`
 * answering `runs_json` of RPC_BENCH_BYTES bytes on three h2c ports: HTTP/2's default receive windows and Connect's
 * handler (the service kit before issue 19); the kit's windows and Connect's handler (before its unary fast path);
 * the kit's windows and its server as `startService` builds it (unary-handler.ts first, Connect's for the rest).
 * It reports its port numbers, then its CPU usage whenever asked.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { RunsService } from '@assay/proto/assay/runs/v1/runs_pb';
import { RPC_CONNECTION_WINDOW, RPC_STREAM_WINDOW, unaryHandler } from '@assay/service-kit';

const body = Buffer.alloc(Number(process.env.RPC_BENCH_BYTES ?? 45000), 'x');
const routes = (router: ConnectRouter) =>
  router.service(RunsService, { listRuns: async () => ({ runsJson: body, page: { total: 200n } }) });
const connect = connectNodeAdapter({ routes });
const fast = unaryHandler({ interceptors: [], readMaxBytes: 64 * 1024 * 1024, shutdownSignal: new AbortController().signal });
const kit = connectNodeAdapter({ routes: fast.routes(routes) });
const wide = (s: http2.Http2Server) => s.on('session', (x) => x.setLocalWindowSize(RPC_CONNECTION_WINDOW));
const servers = [
  http2.createServer({}, connect),
  wide(http2.createServer({ settings: { initialWindowSize: RPC_STREAM_WINDOW } }, connect)),
  wide(
    http2.createServer({ settings: { initialWindowSize: RPC_STREAM_WINDOW } }, (req, res) => {
      if (!fast.handle(req, res)) kit(req, res);
    }),
  ),
];
const listen = (s: http2.Http2Server) =>
  new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));

void (async () => {
  const ports = await Promise.all(servers.map(listen));
  process.send!(ports);
  process.on('message', () => process.send!(process.cpuUsage()));
  process.once('disconnect', () => process.exit(0));
})();
