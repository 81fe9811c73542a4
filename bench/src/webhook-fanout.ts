/**
 * Webhook fan-out: one RUN_FINISHED to 200 subscriptions whose URLs point at local receivers. Measures, from
 * the moment the event is published on Kafka (the runs service's "run finished") to each receipt at a
 * receiver: deliveries per second and p50/p99 latency. The path measured is the real one: Kafka → consumer
 * → 200 delivery rows → dispatcher (claims, decrypts, signs, POSTs) → receiver.
 *
 *   make bench BENCH=webhook-fanout      (or: node bench/dist/run.js webhook-fanout)
 *   BENCH_SUBSCRIPTIONS=200 BENCH_ROUNDS=5 BENCH_WEBHOOK_CONCURRENCY=32
 */
import { Admin, Api, RunEventPublisher, runEvent, WebhookReceiver } from '@assay/testkit';
import { benchSystem, percentile } from './lib';

export async function run(): Promise<void> {
  const subscriptions = Number(process.env.BENCH_SUBSCRIPTIONS ?? 200);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  const concurrency = process.env.BENCH_WEBHOOK_CONCURRENCY ?? '32';
  const receiverCount = 4;
  const bench = await benchSystem({
    gateway: { RATE_LIMITS: 'reads=1000000,writes=1000000,ip=1000000' },
    webhooks: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_CONCURRENCY: concurrency },
  });
  const receivers = await Promise.all(Array.from({ length: receiverCount }, () => new WebhookReceiver().start()));
  const events = new RunEventPublisher(bench.infra.env.KAFKA_BROKERS);
  try {
    const admin = new Admin(bench.system.adminUrl, bench.system.internalToken);
    const t = await admin.tenant('owner');
    const api = new Api(bench.system.gatewayUrl, t.token);
    for (let i = 0; i < subscriptions; i++) {
      const r = receivers[i % receiverCount]!;
      const res = await api.post(`/${t.projectId}/webhooks`, { url: r.url(`/hook/${i}`), events: ['RUN_FINISHED'] });
      if (res.status !== 201) throw new Error(`creating subscription ${i} answered ${res.status}: ${res.text}`);
    }
    const all: number[] = [];
    const rates: number[] = [];
    console.log(`${subscriptions} subscriptions on ${receiverCount} local receivers; dispatcher concurrency ${concurrency}`);
    // Round 0 warms the consumer, the pool and the HTTP connections; it is not counted.
    for (let round = 0; round <= rounds; round++) {
      // Subscription i is on receiver i % receiverCount: each receiver waits for its own share.
      const waiting = Promise.all(
        receivers.map((r, k) => {
          const before = r.received.length;
          const share = Math.floor(subscriptions / receiverCount) + (k < subscriptions % receiverCount ? 1 : 0);
          return r.waitFor(() => r.received.length - before >= share, 120000, 'fan-out');
        }),
      );
      const t0 = Date.now();
      await events.publish(runEvent({ projectId: t.projectId, type: 'RUN_FINISHED', failed: 1 }));
      await waiting;
      const latencies = receivers
        .flatMap((r) => r.received)
        .slice(0)
        .sort((a, b) => a.receivedAt - b.receivedAt)
        .slice(-subscriptions)
        .map((h) => h.receivedAt - t0)
        .sort((a, b) => a - b);
      const seconds = latencies[latencies.length - 1]! / 1000;
      const rate = subscriptions / seconds;
      if (round === 0) {
        console.log(`  warm-up: ${subscriptions} deliveries, last after ${latencies[latencies.length - 1]} ms`);
        continue;
      }
      all.push(...latencies);
      rates.push(rate);
      console.log(
        `  round ${round}: ${subscriptions} deliveries in ${seconds.toFixed(2)} s = ${rate.toFixed(0)}/s; ` +
          `p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms (run finish → receipt)`,
      );
    }
    all.sort((a, b) => a - b);
    const meanRate = rates.reduce((a, b) => a + b, 0) / rates.length;
    console.log(
      `  all ${rounds} rounds: ${all.length} deliveries, ${meanRate.toFixed(0)} deliveries/s (mean of rounds); ` +
        `latency p50 ${percentile(all, 50)} ms, p99 ${percentile(all, 99)} ms, max ${all[all.length - 1]} ms`,
    );
  } finally {
    await events.close();
    await Promise.all(receivers.map((r) => r.close()));
    await bench.close();
  }
}
