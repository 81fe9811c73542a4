/**
 * The event port. Services publish and consume through these small interfaces; kafkajs (in maintenance mode)
 * stays inside this package, so moving to another client later touches only this file.
 *
 * Consumer contract: a message's offset is committed only after its handler resolved. A handler that throws
 * makes the consumer back off and see the message again, so handlers must be idempotent.
 */
import { createRequire } from 'node:module';
import type { Kafka, Consumer, Producer, Admin, LogEntry, Batch, EachBatchPayload, EachMessagePayload, KafkaMessage } from 'kafkajs';
import type { Logger } from '@assay/logger';
import { fixIdleQueueCheck, type RequestQueueClass } from './kafkajs-idle';

export const Topics = {
  /** Run lifecycle events, key = run id, value = assay.events.v1.RunLifecycleEvent. */
  RUN_LIFECYCLE: 'assay.run-lifecycle.v1',
} as const;

export interface EventMessage {
  key: string;
  value: Uint8Array;
  headers?: Record<string, string>;
}

export interface ConsumedEvent {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
}

export interface EventPublisher {
  /** Resolves once every message is acknowledged by the broker (acks = all). */
  publish(topic: string, messages: EventMessage[]): Promise<void>;
  disconnect(): Promise<void>;
}

export interface EventConsumer {
  /** Starts consuming; resolves once the consumer joined its group. */
  start(handler: (event: ConsumedEvent) => Promise<void>): Promise<void>;
  /** Stops after the in-flight message, committing what was handled. */
  stop(): Promise<void>;
}

export interface ConsumerOptions {
  groupId: string;
  topics: string[];
  /** Where a new group starts: true = oldest retained message (default), false = only new ones. */
  fromBeginning?: boolean;
  /**
   * Partitions whose messages are handled at the same time (default 1: one message at a time). Messages of one
   * partition (so all those of one key) are always handled in order, one after the other.
   */
  partitionsConcurrently?: number;
  /**
   * Messages of one partition with different keys are handled at the same time (default false); those of one key
   * (and those without a key) still one after the other, in order. A message's offset is committed once it and every
   * message before it in its partition were handled; when one fails, those after it are seen again too.
   */
  keysConcurrently?: boolean;
}

export interface EventBus {
  publisher(): Promise<EventPublisher>;
  consumer(opts: ConsumerOptions): EventConsumer;
  ensureTopics(topics: { topic: string; numPartitions?: number }[]): Promise<void>;
  /** True when a broker answers a metadata request within `timeoutMs`. */
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  logger: Logger;
}

function kafkaLogCreator(logger: Logger, logLevel: typeof import('kafkajs').logLevel) {
  const log = logger.child({ component: 'kafka' });
  return () =>
    ({ level, log: entry }: LogEntry) => {
      const { message, ...extra } = entry;
      // Broker outages make kafkajs log at ERROR on every retry; they are expected and surface in health.
      if (level <= logLevel.WARN) log.warn({ kafka: { ...extra, timestamp: undefined } }, message);
      else if (level === logLevel.INFO) log.debug({ kafka: { ...extra, timestamp: undefined } }, message);
    };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function consumedEvent(topic: string, partition: number, message: KafkaMessage): ConsumedEvent {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(message.headers ?? {})) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? String(v[0]) : String(v);
  }
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key ? message.key.toString() : null,
    value: message.value ?? Buffer.alloc(0),
    headers,
  };
}

const KEYS_AT_ONCE = 16;

/**
 * `keysConcurrently`: a fetched batch of one partition, each key's messages in order, the keys at the same time.
 * Only the longest handled run from the batch's start is resolved (committed); after a failure (thrown once every key
 * stopped) or a stop, the rest of the batch is fetched and handled again.
 */
async function handleByKey(
  batch: Batch,
  handler: (event: ConsumedEvent) => Promise<void>,
  k: Pick<EachBatchPayload, 'resolveOffset' | 'heartbeat' | 'isRunning' | 'isStale'>,
): Promise<void> {
  const byKey = new Map<string, KafkaMessage[]>();
  for (const m of batch.messages) {
    const key = m.key ? `k${m.key.toString('latin1')}` : '-';
    const list = byKey.get(key);
    if (list) list.push(m);
    else byKey.set(key, [m]);
  }
  const handled = new Set<string>();
  let failed: { err: unknown } | undefined;
  const handleKey = async (messages: KafkaMessage[]): Promise<void> => {
    for (const m of messages) {
      if (failed || !k.isRunning() || k.isStale()) return;
      try {
        await handler(consumedEvent(batch.topic, batch.partition, m));
      } catch (err) {
        failed ??= { err };
        return;
      }
      handled.add(m.offset);
    }
  };
  // A batch can hold the events of hundreds of runs: a bounded number of keys at once.
  const groups = [...byKey.values()];
  await Promise.all(
    Array.from({ length: Math.min(KEYS_AT_ONCE, groups.length) }, async () => {
      for (let messages = groups.shift(); messages; messages = groups.shift()) await handleKey(messages);
    }),
  );
  let last: string | undefined;
  for (const m of batch.messages) {
    if (!handled.has(m.offset)) break;
    last = m.offset;
  }
  if (last !== undefined) k.resolveOffset(last);
  await k.heartbeat();
  if (failed) throw failed.err;
}

/** kafkajs, with its idle connections' 1 ms timer fixed (kafkajs-idle.ts). */
function loadKafkajs(): typeof import('kafkajs') {
  const require = createRequire(__filename);
  fixIdleQueueCheck(require('kafkajs/src/network/requestQueue') as RequestQueueClass);
  return require('kafkajs') as typeof import('kafkajs');
}

export function createKafkaBus(opts: KafkaBusOptions): EventBus {
  // kafkajs (143 modules) is loaded by the first use: processes that never publish or consume (the gateway, a
  // migration run) do not hold it in memory (require, not import(): jest's CommonJS runtime refuses the latter).
  let client: Promise<{ kafka: Kafka; kafkajs: typeof import('kafkajs') }> | undefined;
  const connect = () =>
    (client ??= Promise.resolve(loadKafkajs()).then((kafkajs) => ({
      kafkajs,
      kafka: new kafkajs.Kafka({
        clientId: opts.clientId,
        brokers: opts.brokers,
        logLevel: kafkajs.logLevel.WARN,
        logCreator: kafkaLogCreator(opts.logger, kafkajs.logLevel),
        connectionTimeout: 3000,
        requestTimeout: 10000,
        retry: { initialRetryTime: 300, retries: 8, maxRetryTime: 5000 },
      }),
    })));
  let admin: Admin | undefined;
  let adminConnecting: Promise<Admin> | undefined;
  const producers: Producer[] = [];
  const consumers: Consumer[] = [];

  async function getAdmin(): Promise<Admin> {
    if (admin) return admin;
    adminConnecting ??= (async () => {
      const { kafka } = await connect();
      const a = kafka.admin({ retry: { retries: 0 } });
      try {
        await a.connect();
      } catch (err) {
        adminConnecting = undefined;
        throw err;
      }
      admin = a;
      a.on(a.events.DISCONNECT, () => {
        if (admin === a) admin = undefined;
        adminConnecting = undefined;
      });
      return a;
    })();
    return adminConnecting;
  }

  return {
    async publisher() {
      const { kafka, kafkajs } = await connect();
      const producer = kafka.producer({
        createPartitioner: kafkajs.Partitioners.DefaultPartitioner,
        idempotent: false,
        maxInFlightRequests: 1,
      });
      await producer.connect();
      producers.push(producer);
      return {
        async publish(topic, messages) {
          if (messages.length === 0) return;
          await producer.send({
            topic,
            acks: -1,
            messages: messages.map((m) => ({ key: m.key, value: Buffer.from(m.value), headers: m.headers })),
          });
        },
        async disconnect() {
          await producer.disconnect();
        },
      };
    },

    consumer(copts) {
      let consumer: Consumer | undefined;
      let running = false;
      return {
        async start(handler) {
          const { kafka } = await connect();
          consumer = kafka.consumer({
            groupId: copts.groupId,
            sessionTimeout: 10000,
            heartbeatInterval: 1000,
            retry: { retries: 10, initialRetryTime: 300, maxRetryTime: 5000 },
          });
          consumers.push(consumer);
          await consumer.connect();
          await consumer.subscribe({ topics: copts.topics, fromBeginning: copts.fromBeginning ?? true });
          const c = consumer;
          const joined = new Promise<void>((resolve) => {
            const off = c.on(c.events.GROUP_JOIN, () => {
              off();
              resolve();
            });
          });
          running = true;
          await consumer.run({
            autoCommit: true,
            partitionsConsumedConcurrently: copts.partitionsConcurrently ?? 1,
            ...(copts.keysConcurrently
              ? {
                  eachBatchAutoResolve: false,
                  eachBatch: ({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) =>
                    handleByKey(batch, handler, { resolveOffset, heartbeat, isRunning, isStale }),
                }
              : {
                  eachMessage: async ({ topic, partition, message }: EachMessagePayload) => {
                    await handler(consumedEvent(topic, partition, message));
                  },
                }),
          });
          await joined;
        },
        async stop() {
          if (!running) return;
          running = false;
          await consumer?.disconnect();
        },
      };
    },

    async ensureTopics(topics) {
      const a = await getAdmin();
      const existing = new Set(await a.listTopics());
      const missing = topics.filter((t) => !existing.has(t.topic));
      if (missing.length === 0) return;
      await a.createTopics({
        waitForLeaders: true,
        topics: missing.map((t) => ({ topic: t.topic, numPartitions: t.numPartitions ?? 3, replicationFactor: -1 })),
      });
    },

    async ping(timeoutMs = 2000) {
      try {
        const a = await withTimeout(getAdmin(), timeoutMs);
        await withTimeout(a.describeCluster(), timeoutMs);
        return true;
      } catch {
        // Drop the admin client so the next ping reconnects from scratch (a restarted broker).
        const stale = admin;
        admin = undefined;
        adminConnecting = undefined;
        void stale?.disconnect().catch(() => undefined);
        return false;
      }
    },

    async close() {
      await Promise.allSettled([...consumers.map((c) => c.disconnect()), ...producers.map((p) => p.disconnect()), admin?.disconnect()]);
    },
  };
}
