import { randomBytes } from 'node:crypto';
import { createLogger } from '@assay/logger';
import { testSystem } from '@assay/testkit';
import { createKafkaBus, type ConsumedEvent, type EventBus } from '../src';

const logger = createLogger('test', 'silent');

function collect(n: number) {
  const got: ConsumedEvent[] = [];
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  return {
    got,
    done,
    handler: async (e: ConsumedEvent) => {
      got.push(e);
      if (got.length >= n) resolve();
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms))]);
}

describe('the Kafka event port against a real broker', () => {
  let bus: EventBus;
  const topic = `test.events.${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    bus = createKafkaBus({ brokers: testSystem().infra.KAFKA_BROKERS.split(','), clientId: 'events-test', logger });
    await bus.ensureTopics([{ topic, numPartitions: 3 }]);
  });
  afterAll(() => bus.close());

  it('answers ping while the broker is up', async () => {
    expect(await bus.ping()).toBe(true);
  });

  it('publishes and consumes with keys, headers and per-key order', async () => {
    const publisher = await bus.publisher();
    const messages = Array.from({ length: 20 }, (_, i) => ({
      key: `run-${i % 4}`,
      value: Buffer.from(JSON.stringify({ seq: i })),
      headers: { 'x-test': String(i) },
    }));
    await publisher.publish(topic, messages);

    const sink = collect(20);
    const consumer = bus.consumer({ groupId: `g-${randomBytes(4).toString('hex')}`, topics: [topic] });
    await consumer.start(sink.handler);
    await withTimeout(sink.done, 30000);
    await consumer.stop();

    expect(sink.got).toHaveLength(20);
    for (let k = 0; k < 4; k++) {
      const seqs = sink.got.filter((e) => e.key === `run-${k}`).map((e) => JSON.parse(e.value.toString()).seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b)); // per-key order kept
      expect(seqs).toHaveLength(5);
    }
    expect(sink.got.find((e) => e.key === 'run-1')?.headers['x-test']).toBeDefined();
  });

  it('commits offsets only for handled messages: a failing handler sees the message again, a restarted group does not', async () => {
    const groupId = `g-${randomBytes(4).toString('hex')}`;
    const t = `test.redeliver.${randomBytes(4).toString('hex')}`;
    await bus.ensureTopics([{ topic: t, numPartitions: 1 }]);
    const publisher = await bus.publisher();
    await publisher.publish(t, [{ key: 'k', value: Buffer.from('first') }]);

    let attempts = 0;
    const handled: string[] = [];
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    const consumer = bus.consumer({ groupId, topics: [t] });
    await consumer.start(async (e) => {
      attempts++;
      if (attempts === 1) throw new Error('transient failure');
      handled.push(e.value.toString());
      resolve();
    });
    await withTimeout(done, 30000);
    await consumer.stop();
    expect(attempts).toBe(2);
    expect(handled).toEqual(['first']);

    // Same group again: the handled message was committed, only the new one arrives.
    await publisher.publish(t, [{ key: 'k', value: Buffer.from('second') }]);
    const sink = collect(1);
    const again = bus.consumer({ groupId, topics: [t] });
    await again.start(sink.handler);
    await withTimeout(sink.done, 30000);
    await new Promise((r) => setTimeout(r, 500));
    await again.stop();
    expect(sink.got.map((e) => e.value.toString())).toEqual(['second']);
  });
});
