/**
 * The fan-out's floor: how close to the bare loop any pipeline fed by Kafka can come on this machine, to tell
 * what webhook-fanout's goal (≥ 0.5× the bare loop's deliveries/s) asks of a design from what it asks of Assay's
 * code. Only the infrastructure runs (Postgres, Redis, Kafka), no Assay service.
 *
 * In each round, in turn, with webhook-fanout's subscriptions, receivers, concurrency, signing and measure:
 * - the bare loop (fanout-baseline.ts): POSTs from the start of its loop to each receipt;
 * - the floor without storage (fanout-floor-worker.ts, `kafka`): one RUN_FINISHED event per project published on
 *   the run lifecycle topic, consumed, and POSTed to its subscriptions; from the publish to each receipt;
 * - the floor with the least storage at-least-once delivery needs (`rows`): the same, with each event's deliveries
 *   inserted before its offset is committed and the outcomes written in batches.
 * Printed: deliveries/s (the mean of the rounds' rates, as webhook-fanout), each floor's ratio to the bare loop,
 * and the CPU a delivery of every process the events reach.
 *
 * With BENCH_FLOOR_SYSTEM=1 Assay's whole system runs meanwhile (benchSystem, set up as webhook-fanout sets it), its
 * consumers reading the same events on the same cores: analytics asks runs for each finished run's results, and
 * webhooks looks for subscriptions of the event's project (it finds none: the floor's are its own). That is the
 * floor of the fan-out inside the system whose run events also feed analytics, as in webhook-fanout. Assay's own
 * fan-out is then measured in the same turns (`Assay`: webhook-fanout's round, its subscriptions on the same
 * receivers; the floor's worker finds no subscription of its projects either), so that Assay and the floors are told
 * apart in one run rather than across two benches.
 *
 * Warm-up and rounds as in webhook-fanout (ten rounds of each, not counted; then 20): the bare loop, the broker and
 * the workers all keep getting faster over the first rounds.
 *
 *   make bench BENCH=fanout-floor      (or: node bench/dist/run.js fanout-floor)
 *   BENCH_SUBSCRIPTIONS=200 BENCH_ROUNDS=20 BENCH_WARMUP_ROUNDS=10 BENCH_WEBHOOK_CONCURRENCY=32 BENCH_FLOOR_SYSTEM=1
 *   BENCH_CPU_PROF=<dir>   the floor's worker writes a V8 CPU profile into <dir>/floor when it stops
 */
import { randomBytes } from 'node:crypto';
import { MAX_SUBSCRIPTIONS_PER_PROJECT } from '@assay/contracts/webhooks/values';
import { createPool } from '@assay/db';
import { RunEventPublisher, runEvent, startInfra, WebhookReceiver } from '@assay/testkit';
import { forkChild } from './child';
import { cpuMeter, kafkaGroup, pidGroup, postgresGroup, type CpuGroup } from './cpu';
import type { FloorAnswer, FloorMode, FloorRequest, FloorSubscription } from './fanout-floor-worker';
import { FLOOR_TABLE_SQL } from './fanout-floor-worker';
import { benchSystem, percentile } from './lib';
import { addFigure, times } from './summary';
import {
  assayFanout,
  bareLoop,
  checkSigned,
  CONNECTIONS_PER_ORIGIN,
  fanoutSystemEnv,
  measure,
  TIMEOUT_MS,
  type BareLoop,
  type Round,
} from './webhook-fanout';

const SCHEMA = 'fanout_floor';

const startWorker = () => forkChild<FloorRequest, FloorAnswer>('fanout-floor-worker.js', 'floor');

/** Publishes an event of no project until the worker has consumed one (each is looked for over a second). */
async function untilConsuming(worker: ReturnType<typeof startWorker>, events: RunEventPublisher): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const probe = runEvent({ projectId: 'probe', type: 'RUN_FINISHED' });
    await events.publish(probe);
    for (let i = 0; i < 10; i++) {
      if ((await worker.ask({ seen: probe.eventId })).seen) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('the floor worker consumed no probe within 60 s');
}

interface Totals {
  rates: number[];
  latencies: number[];
  cpu: Record<string, number>;
}

export async function run(): Promise<void> {
  const subscriptions = Number(process.env.BENCH_SUBSCRIPTIONS ?? 200);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 20);
  const warmup = Math.max(1, Number(process.env.BENCH_WARMUP_ROUNDS ?? 10));
  const concurrency = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 32);
  const receiverCount = 4;
  const projects = Array.from({ length: Math.ceil(subscriptions / MAX_SUBSCRIPTIONS_PER_PROJECT) }, () => randomBytes(12).toString('hex'));
  const system = process.env.BENCH_FLOOR_SYSTEM === '1' ? await benchSystem(fanoutSystemEnv(concurrency)) : undefined;
  const infra = system?.infra ?? (await startInfra());
  const receivers = await Promise.all(Array.from({ length: receiverCount }, () => new WebhookReceiver().start()));
  const events = new RunEventPublisher(infra.env.KAFKA_BROKERS);
  const db = createPool({ connectionString: infra.env.DATABASE_URL, schema: SCHEMA, max: 1, applicationName: 'fanout-floor-bench' });
  let worker: ReturnType<typeof startWorker> | undefined;
  let baseline: BareLoop | undefined;
  try {
    await db.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}; SET search_path TO ${SCHEMA}; ${FLOOR_TABLE_SQL}`);
    const subs: FloorSubscription[] = Array.from({ length: subscriptions }, (_, i) => ({
      id: `sub-${i}`,
      projectId: projects[Math.floor(i / MAX_SUBSCRIPTIONS_PER_PROJECT)]!,
      url: receivers[i % receiverCount]!.url(`/hook/${i}`),
      secret: randomBytes(24).toString('base64url'),
    }));
    const secretOf = new Map(subs.map((s, i) => [`/hook/${i}`, s.secret]));
    // Assay's subscriptions on the same receivers, under paths of their own.
    const assay = system ? await assayFanout(system, receivers, events, subscriptions, '/assay') : undefined;
    for (const [p, secret] of assay?.secretOf ?? []) secretOf.set(p, secret);
    // The topic exists before the worker's group joins (it starts at the newest offset).
    await events.publish();
    worker = startWorker();
    await worker.ask({
      setup: {
        brokers: infra.env.KAFKA_BROKERS,
        databaseUrl: infra.env.DATABASE_URL,
        schema: SCHEMA,
        subscriptions: subs,
        concurrency,
        timeoutMs: TIMEOUT_MS,
        connections: CONNECTIONS_PER_ORIGIN,
      },
    });
    // The worker's group starts at the newest offset as of its first fetch, which can come after `setup` answered: the
    // warm-up round's events were skipped once in `make bench`, and it waited 120 s for them. Probes of no project go
    // out until the worker has seen one.
    await untilConsuming(worker, events);
    const floorRound = (mode: FloorMode) => async (): Promise<Round> => {
      await worker!.ask({ mode });
      return measure(
        receivers,
        subscriptions,
        async () => {
          const t0 = Date.now();
          await events.publish(...projects.map((projectId) => runEvent({ projectId, type: 'RUN_FINISHED', failed: 1 })));
          return t0;
        },
        `floor (${mode})`,
      );
    };
    // Warms the consumer, the pool and the connections, and gives the bare loop the bodies the floor sent.
    const warm = await floorRound('rows')();
    checkSigned(warm.received, secretOf, 'floor');
    await floorRound('kafka')();
    baseline = await bareLoop(receivers, warm.received, secretOf, concurrency);
    const bareRound = baseline.round;
    await bareRound();
    if (assay) checkSigned((await assay.round()).received, secretOf, 'Assay');

    const receiversCpu = pidGroup('receivers', process.pid);
    const pidOf = (name: string) => system?.system.processes.get(name)?.child.pid;
    const floorCpu: CpuGroup[] = [
      pidGroup('floor', worker.child.pid),
      postgresGroup(Number(new URL(infra.env.DATABASE_URL).port)),
      receiversCpu,
      kafkaGroup(infra.scriptEnv?.ASSAY_DATA_DIR),
      ...(system ? ['webhooks', 'analytics', 'runs'].map((name) => pidGroup(name, pidOf(name))) : []),
    ].filter((g) => g.pids().length > 0);
    const kinds = [
      { name: 'bare loop', go: bareRound, cpu: [pidGroup('loop', baseline.child.pid), receiversCpu] },
      { name: 'floor, Kafka only', go: floorRound('kafka'), cpu: floorCpu },
      { name: 'floor, Kafka + rows', go: floorRound('rows'), cpu: floorCpu },
      ...(assay ? [{ name: 'Assay', go: assay.round, cpu: assay.cpu }] : []),
    ];
    for (let i = 1; i < warmup; i++) for (const k of kinds) checkSigned((await k.go()).received, secretOf, k.name);
    const totals = new Map<string, Totals>(kinds.map((k) => [k.name, { rates: [], latencies: [], cpu: {} }]));
    console.log(
      `${subscriptions} subscriptions (${projects.length} projects, one RUN_FINISHED each per round) on ${receiverCount} local receivers; ` +
        `concurrency ${concurrency}; ${system ? "Assay's services running, their consumers on the same events" : 'no Assay service running'}`,
    );
    for (let round = 1; round <= rounds; round++) {
      for (const k of kinds) {
        const meter = cpuMeter(k.cpu);
        const r = await k.go();
        const t = totals.get(k.name)!;
        for (const [g, v] of Object.entries(meter())) t.cpu[g] = (t.cpu[g] ?? 0) + v;
        checkSigned(r.received, secretOf, k.name);
        t.rates.push(r.rate);
        t.latencies.push(...r.latencies);
        console.log(
          `  round ${round} ${k.name.padEnd(19)}: ${(r.latencies[r.latencies.length - 1]! / 1000).toFixed(3)} s = ${r.rate.toFixed(0)}/s; ` +
            `first ${r.latencies[0]} ms`,
        );
      }
    }
    const mean = (t: Totals) => t.rates.reduce((a, b) => a + b, 0) / t.rates.length;
    const bare = mean(totals.get('bare loop')!);
    for (const k of kinds) {
      const t = totals.get(k.name)!;
      const sorted = [...t.latencies].sort((a, b) => a - b);
      const cpu = Object.entries(t.cpu).map(([g, v]) => `${g} ${(v / (rounds * subscriptions)).toFixed(2)}`);
      const all = Object.values(t.cpu).reduce((a, b) => a + b, 0) / (rounds * subscriptions);
      console.log(
        `  ${k.name.padEnd(19)}: ${mean(t).toFixed(0)} deliveries/s (mean of ${rounds} rounds), ${(mean(t) / bare).toFixed(2)}× the bare loop; ` +
          `p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms; CPU ms a delivery: ${cpu.join(', ')} (all ${all.toFixed(2)})`,
      );
      if (k.name !== 'bare loop')
        addFigure({
          bench: 'fanout-floor',
          figure: `200 hooks, ${k.name}${system ? ', the system running' : ''}: deliveries/s`,
          assay: mean(t).toFixed(0),
          baseline: `bare loop ${bare.toFixed(0)}`,
          ratio: times(mean(t), bare),
          goal: 'for scale',
        });
    }
  } finally {
    baseline?.child.disconnect();
    // The worker leaves its consumer group before the broker stops.
    const exited = worker && worker.child.exitCode === null ? new Promise((resolve) => worker!.child.once('exit', resolve)) : undefined;
    worker?.child.disconnect();
    await exited;
    await events.close();
    await db.end();
    await Promise.all(receivers.map((r) => r.close()));
    await (system ? system.close() : infra.stop());
  }
}
