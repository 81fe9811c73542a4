/**
 * The reads' floor: how close to the single-process baseline any gateway in front of a service can come on this
 * machine, to tell what the reads goal (≥ 0.7× the baseline's throughput at 16 and 50 connections, p50 at one
 * connection ≤ 2×) asks of the architecture from what it asks of Assay's code.
 *
 * `GET /{p}/test-runs?limit=50` over 200 runs (seeded as `reads` seeds them), the baseline (baseline-server.js)
 * against, in turns as `reads` measures:
 * - the floor: the baseline's very process as the service, behind a gateway that only forwards
 *   (reads-floor-gateway.ts: kept-alive HTTP/1.1, the answer's bytes as they come);
 * - the floor with Redis: the same, with one round trip to Redis a request (a pipeline of a GET and an INCR), the
 *   least a rate limit shared by replicas and an auth cache need;
 * - the floor with Redis and Assay's runs service: the same forwarder asking the runs service through the service
 *   kit's client, as the gateway does, and writing its envelope: what the architecture's service side costs before
 *   any of the gateway's own work (authentication, rate limits, validation, hooks);
 * - Assay (gateway, runs service, Redis), for comparison in the same run.
 *
 *   make bench BENCH=reads-floor      (BENCH_SECONDS=10 per measurement)
 *   BENCH_FLOOR_TARGETS=assay,redis,assay   which of floor, redis (the floor with Redis), service (the floor with
 *                                           Redis and the runs service) and assay, in that order (default all four);
 *                                           a name again measures it again. The baseline's process keeps getting
 *                                           faster for minutes, so what comes later meets a faster baseline
 *                                           (2026-11-30).
 */
import { Admin, Api } from '@assay/testkit';
import { pidGroup, postgresGroup, redisGroup, type CpuGroup } from './cpu';
import { benchSystem } from './lib';
import { compare, cpuParts, cpuTotal, seedRuns, startBaseline, startServer, type Target } from './reads';
import { addFigure, times } from './summary';

export async function run(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const bench = await benchSystem({ gateway: { RATE_LIMITS: 'reads=100000000,writes=100000000,ip=100000000,ingest=100000000' } });
  const redisUrl = bench.infra.env.REDIS_URL;
  const baseline = await startBaseline(bench.infra.env.DATABASE_URL, bench.system.gatewayUrl);
  const floors = [
    await startServer('reads-floor-gateway.js', { UPSTREAM: baseline.url }),
    await startServer('reads-floor-gateway.js', { UPSTREAM: baseline.url, REDIS_URL: redisUrl }),
    await startServer('reads-floor-gateway.js', {
      RUNS_RPC_URL: `http://127.0.0.1:${bench.system.ports.services.runs!.rpcPort}`,
      INTERNAL_AUTH_TOKEN: bench.system.credentials.gateway!,
      REDIS_URL: redisUrl,
    }),
  ];
  try {
    const t = await new Admin(bench.system.adminUrl, bench.system.internalToken).tenant('owner');
    await seedRuns(new Api(bench.system.gatewayUrl, t.token), t);
    const path = `/api/v1/public/${t.projectId}/test-runs?limit=50`;
    const postgres = postgresGroup(Number(new URL(bench.infra.env.DATABASE_URL).port));
    const redis = redisGroup(Number(new URL(redisUrl).port));
    const service = pidGroup('service', baseline.pid);
    const pid = (name: string) => pidGroup(name, bench.system.processes.get(name)?.child.pid);
    const base: Target = { url: `${baseline.url}${path}`, cpu: [pidGroup('baseline', baseline.pid), postgres] };
    const floorCpu = (gatewayPid: number | undefined, more: CpuGroup[]) => [pidGroup('gateway', gatewayPid), service, postgres, ...more];
    const all: Record<string, { name: string; target: Target }> = {
      floor: { name: 'floor', target: { url: `${floors[0]!.url}${path}`, cpu: floorCpu(floors[0]!.pid, []) } },
      redis: { name: 'floor + Redis', target: { url: `${floors[1]!.url}${path}`, cpu: floorCpu(floors[1]!.pid, [redis]) } },
      service: {
        name: 'floor + Redis + runs service',
        target: { url: `${floors[2]!.url}${path}`, cpu: [pidGroup('gateway', floors[2]!.pid), pid('runs'), postgres, redis] },
      },
      assay: {
        name: 'Assay',
        target: {
          url: `${bench.system.gatewayUrl}${path}`,
          headers: { authorization: `Bearer ${t.token}` },
          cpu: [pid('gateway'), pid('runs'), pid('identity'), postgres, redis],
        },
      },
    };
    const targets = (process.env.BENCH_FLOOR_TARGETS ?? 'floor,redis,service,assay').split(',').map((key, i, keys) => {
      const t = all[key];
      if (!t) throw new Error(`BENCH_FLOOR_TARGETS: "${key}" is none of ${Object.keys(all).join(', ')}`);
      const before = keys.slice(0, i).filter((k) => k === key).length;
      return before === 0 ? t : { ...t, name: `${t.name} (turn ${before + 1})` };
    });
    // The same answer from all of them.
    const data = async (tg: Target) => JSON.stringify((await (await fetch(tg.url, { headers: tg.headers })).json()).data);
    const expected = await data(base);
    for (const { name, target } of targets)
      if ((await data(target)) !== expected) throw new Error(`${name} answers otherwise than the baseline`);

    console.log(`\nGET /{p}/test-runs?limit=50, 200 runs, against the baseline, ${seconds} s per figure in turns (autocannon)`);
    console.log('| target | connections | req/s | baseline req/s | ratio | p99 ratio | p50 ratio | CPU ms/req (baseline) | by process |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const { name, target } of targets) {
      for (const c of [16, 50, 1]) {
        const { bf, af } = await compare(base, target, c, seconds);
        console.log(
          `| ${name} | ${c} | ${af.perSecond.toFixed(0)} | ${bf.perSecond.toFixed(0)} | ${times(af.perSecond, bf.perSecond)} | ` +
            `${times(af.p99, bf.p99)} | ${times(af.p50, bf.p50)} | ${cpuTotal(af).toFixed(2)} (${cpuTotal(bf).toFixed(2)}) | ${cpuParts(af)} |`,
        );
        addFigure({
          bench: 'reads-floor',
          figure: c === 1 ? `test-runs, ${name}, 1 connection: p50` : `test-runs, ${name}, ${c} connections: req/s`,
          assay: c === 1 ? `${af.p50} ms` : af.perSecond.toFixed(0),
          baseline: c === 1 ? `${bf.p50} ms` : bf.perSecond.toFixed(0),
          ratio: c === 1 ? times(af.p50, bf.p50) : times(af.perSecond, bf.perSecond),
          goal: 'for scale',
        });
      }
    }
  } finally {
    for (const f of floors) f.stop();
    baseline.stop();
    await bench.close();
  }
}
