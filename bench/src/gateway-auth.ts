/**
 * Gateway hot path: authenticated reads through the whole stack (token → project → role → service →
 * envelope). Prints throughput and latency of token-info (gateway only) and of a suite list (gateway +
 * manual-testing + Postgres), with the auth cache on and off, and the ratio between them.
 *
 *   make bench BENCH=gateway-auth      (or: node bench/dist/run.js gateway-auth)
 */
import { Admin, Api } from '@assay/testkit';
import { benchSystem, closedLoop, fmt } from './lib';

export async function run(): Promise<void> {
  const N = Number(process.env.BENCH_REQUESTS ?? 5000);
  const C = Number(process.env.BENCH_CONCURRENCY ?? 16);
  for (const ttl of ['5', '0']) {
    // A generous rate limit so the benchmark measures the path, not the limiter.
    const bench = await benchSystem({ gateway: { AUTH_CACHE_TTL_SECONDS: ttl, RATE_LIMITS: 'reads=1000000,writes=1000000,ip=1000000' } });
    try {
      const admin = new Admin(bench.system.adminUrl, bench.system.internalToken);
      const t = await admin.tenant('owner');
      const api = new Api(bench.system.gatewayUrl, t.token);
      for (let i = 0; i < 20; i++) await api.post(`/${t.projectId}/manual-test-suites`, { name: `Suite ${i}` });
      await closedLoop(500, C, async () => (await api.get(`/${t.projectId}/token-info`)).status === 200); // warm-up
      const info = await closedLoop(N, C, async () => (await api.get(`/${t.projectId}/token-info`)).status === 200);
      const suites = await closedLoop(N, C, async () => (await api.get(`/${t.projectId}/manual-test-suites`)).status === 200);
      console.log(`auth cache ${ttl === '0' ? 'off' : `on (${ttl} s)`}, concurrency ${C}:`);
      console.log(`  GET token-info          ${fmt(info)}`);
      console.log(`  GET manual-test-suites  ${fmt(suites)}`);
    } finally {
      await bench.close();
    }
  }
}
