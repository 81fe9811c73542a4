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

  it('keysConcurrently: the keys of one partition are handled at the same time, each key in order; a failure commits only what was handled before it', async () => {
    const groupId = `g-${randomBytes(4).toString('hex')}`;
    const t = `test.bykey.${randomBytes(4).toString('hex')}`;
    await bus.ensureTopics([{ topic: t, numPartitions: 1 }]);
    const publisher = await bus.publisher();
    // a1 b1 a2 b2 a3 b3 on one partition.
    await publisher.publish(
      t,
      [1, 2, 3].flatMap((i) => ['a', 'b'].map((k) => ({ key: k, value: Buffer.from(`${k}${i}`) }))),
    );

    const handled: string[] = [];
    let failedOnce = false;
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    const consumer = bus.consumer({ groupId, topics: [t], keysConcurrently: true });
    await consumer.start(async (e) => {
      const v = e.value.toString();
      // Key a is slow: key b's messages need not wait for it.
      if (e.key === 'a') await new Promise((r) => setTimeout(r, 100));
      if (v === 'a3' && !failedOnce) {
        failedOnce = true;
        throw new Error('transient failure');
      }
      handled.push(v);
      if (v === 'a3') resolve();
    });
    await withTimeout(done, 30000);
    await consumer.stop();

    const firstOf = (v: string) => handled.indexOf(v);
    expect(firstOf('b3')).toBeLessThan(firstOf('a2')); // b did not wait for a
    for (const k of ['a', 'b']) {
      // In order; b3, handled after the failed a3, may be seen again.
      expect(handled.filter((v) => v.startsWith(k)).slice(0, 3)).toEqual([`${k}1`, `${k}2`, `${k}3`]);
    }

    // Same group again: everything was committed once a3 was handled, only the new message arrives.
    await publisher.publish(t, [{ key: 'b', value: Buffer.from('b4') }]);
    const sink = collect(1);
    const again = bus.consumer({ groupId, topics: [t], keysConcurrently: true });
    await again.start(sink.handler);
    await withTimeout(sink.done, 30000);
    await new Promise((r) => setTimeout(r, 500));
    await again.stop();
    expect(sink.got.map((e) => e.value.toString())).toEqual(['b4']);
  });
});
