/**
 * Webhook test helpers: a local receiver whose answers can be flipped per path (svix-style), and run
 * lifecycle events published to Kafka exactly as the runs service publishes them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { RunEventType, RunLifecycleEventSchema, RunStatus, type RunLifecycleEvent } from '@assay/proto/assay/events/v1/run_lifecycle_pb';
import { createKafkaBus, Topics, type EventBus, type EventPublisher } from '@assay/events';
import { createLogger } from '@assay/logger';

export interface ReceivedWebhook {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw bytes as received (what the signature covers). */
  body: Buffer;
  /** Date.now() when the body was complete. */
  receivedAt: number;
  /** The status answered. */
  answered: number;
}

/** What a path answers: a list of statuses used in turn (the last one repeats), or a function. */
export type Answer = number[] | ((hit: number, req: http.IncomingMessage) => number);

export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  #server?: http.Server;
  #answers = new Map<string, Answer>();
  #delays = new Map<string, number>();
  #hits = new Map<string, number>();
  #listeners = new Set<() => void>();
  port = 0;

  async start(): Promise<this> {
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0]!;
        const hit = this.#hits.get(path) ?? 0;
        this.#hits.set(path, hit + 1);
        const answer = this.#answers.get(path) ?? [200];
        const status = typeof answer === 'function' ? answer(hit, req) : answer[Math.min(hit, answer.length - 1)]!;
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks), receivedAt: Date.now(), answered: status });
        for (const l of this.#listeners) l();
        const respond = () => {
          if (status >= 300 && status < 400) res.setHeader('location', `http://127.0.0.1:${this.port}/redirected`);
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.end(status >= 200 && status < 300 ? 'ok' : 'no');
        };
        const delay = this.#delays.get(path) ?? 0;
        if (delay > 0) setTimeout(respond, delay);
        else respond();
      });
    });
    this.#server.keepAliveTimeout = 2000;
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Flips what `path` answers from now on (hit counting starts again). */
  answer(path: string, answer: Answer): void {
    this.#answers.set(path, answer);
    this.#hits.set(path, 0);
  }

  /** Answers requests to `path` only after `ms` (the request counts as received at once). */
  delay(path: string, ms: number): void {
    this.#delays.set(path, ms);
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Resolves once `predicate` holds (checked on every request), or rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs: number, what = 'webhook requests'): Promise<void> {
    if (predicate()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const listener = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#listeners.delete(listener);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; received ${this.received.length} so far`));
      }, timeoutMs);
      this.#listeners.add(listener);
    });
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

export interface RunEventInput {
  projectId: string;
  type: 'RUN_STARTED' | 'RUN_FINISHED';
  runId?: string;
  eventId?: string;
  orgId?: string;
  failed?: number;
  timedOut?: number;
  passed?: number;
  occurredAt?: Date;
  status?: RunStatus;
}

/** A run lifecycle event in the shape of proto/assay/events/v1/run_lifecycle.proto. */
export function runEvent(i: RunEventInput): RunLifecycleEvent {
  const occurredAt = i.occurredAt ?? new Date();
  const failed = i.failed ?? 0;
  const timedOut = i.timedOut ?? 0;
  const passed = i.passed ?? 10;
  const finished = i.type === 'RUN_FINISHED';
  const runId = i.runId ?? randomBytes(12).toString('hex');
  return create(RunLifecycleEventSchema, {
    eventId: i.eventId ?? randomBytes(12).toString('hex'),
    type: finished ? RunEventType.RUN_FINISHED : RunEventType.RUN_STARTED,
    occurredAt: timestampFromDate(occurredAt),
    projectId: i.projectId,
    orgId: i.orgId ?? '',
    run: {
      id: runId,
      counter: 7n,
      status: i.status ?? (finished ? (failed + timedOut > 0 ? RunStatus.FAILED : RunStatus.PASSED) : RunStatus.RUNNING),
      startTime: timestampFromDate(new Date(occurredAt.getTime() - (finished ? 60000 : 0))),
      endTime: finished ? timestampFromDate(occurredAt) : undefined,
      duration: finished ? 60000n : 0n,
      testStats: {
        total: passed + failed + timedOut,
        passed,
        failed,
        skipped: 0,
        flaky: 0,
        timedOut,
        totalAttempts: passed + failed + timedOut,
        retriedTests: 0,
      },
      git: { branch: 'main', environment: 'ci', commit: { hash: 'abc123', message: 'Fix things', author: 'Ada' } },
      url: `http://localhost:8080/runs/${runId}`,
      tags: ['smoke'],
    },
  });
}

/** Publishes run lifecycle events on the real topic (key = run id), as the runs service's relay does. */
export class RunEventPublisher {
  #bus: EventBus;
  #publisher?: EventPublisher;

  constructor(brokers: string) {
    this.#bus = createKafkaBus({ brokers: brokers.split(','), clientId: 'test-run-events', logger: createLogger('test', 'silent') });
  }

  async publish(...events: RunLifecycleEvent[]): Promise<void> {
    if (!this.#publisher) {
      await this.#bus.ensureTopics([{ topic: Topics.RUN_LIFECYCLE }]);
      this.#publisher = await this.#bus.publisher();
    }
    await this.#publisher.publish(
      Topics.RUN_LIFECYCLE,
      events.map((e) => ({ key: e.run?.id ?? e.eventId, value: toBinary(RunLifecycleEventSchema, e) })),
    );
  }

  async close(): Promise<void> {
    await this.#bus.close();
  }
}
