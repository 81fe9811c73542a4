/**
 * Webhook deliveries end to end (spec §6, CONTRACT §7): run events published on Kafka as the runs service
 * publishes them → consumer → delivery rows → dispatcher → a local receiver whose answers are flipped per
 * path. The webhooks copy under test retries after 0.3 s instead of minutes. Every signature is checked by
 * our verifier and by an independent one (Python's hmac).
 */
import { verifySignature } from '@assay/webhook-verify';
import { RunEventPublisher, runEvent, testSystem, WebhookReceiver, type Api, type Tenant } from '@assay/testkit';
import { eventually, privateSystem, pythonVerifies, type PrivateSystem } from './webhook-support';

jest.setTimeout(120000);

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('webhook deliveries', () => {
  let sys: PrivateSystem;
  let t: Tenant;
  let api: Api;
  let receiver: WebhookReceiver;
  let events: RunEventPublisher;

  beforeAll(async () => {
    [sys, receiver] = await Promise.all([privateSystem(), new WebhookReceiver().start()]);
    t = await sys.admin.tenant('owner');
    api = sys.api(t.token);
    events = new RunEventPublisher(testSystem().infra.KAFKA_BROKERS);
  });
  afterAll(async () => {
    await events?.close();
    await receiver?.close();
    await sys?.stop();
  });

  const subscribe = async (path: string, body: Record<string, unknown> = {}) => {
    const res = await api.post(`/${t.projectId}/webhooks`, { url: receiver.url(path), events: ['RUN_FINISHED'], ...body });
    expect(res.status).toBe(201);
    return res.body.data as { _id: string; secret: string };
  };
  const deliveries = async (hookId: string, query = '') => (await api.get(`/${t.projectId}/webhooks/${hookId}/deliveries${query}`)).body;
  const subscription = async (hookId: string) => (await api.get(`/${t.projectId}/webhooks/${hookId}`)).body.data;
  const settled = (hookId: string) =>
    eventually(
      () => deliveries(hookId),
      (b) => b.data.length > 0 && b.data.every((d: any) => d.status !== 'pending'),
      30000,
      `deliveries of ${hookId} to settle`,
    );

  async function expectSigned(path: string, secret: string) {
    for (const r of receiver.at(path)) {
      const header = String(r.headers['x-service-signature']);
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(() => verifySignature(r.body, header, secret)).not.toThrow();
      expect(await pythonVerifies(secret, header, r.body)).toBe(true);
      // and the independent check does refuse a tampered body or another secret
      expect(await pythonVerifies(secret, header, Buffer.concat([r.body, Buffer.from(' ')]))).toBe(false);
      expect(await pythonVerifies(`${secret}x`, header, r.body)).toBe(false);
    }
  }

  it('delivers on the first attempt: signed, with the CONTRACT §7 body and the delivery id as header', async () => {
    const hook = await subscribe('/ok');
    const e = runEvent({ projectId: t.projectId, type: 'RUN_FINISHED', failed: 1, passed: 9 });
    await events.publish(e);
    await receiver.waitFor(() => receiver.at('/ok').length === 1, 30000);
    const [got] = receiver.at('/ok');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['x-service-event']).toBe('RUN_FINISHED');
    const body = JSON.parse(got!.body.toString('utf8'));
    expect(body).toEqual({
      id: e.eventId,
      event: 'RUN_FINISHED',
      eventName: 'run.finished',
      createdAt: expect.stringMatching(ISO),
      projectId: t.projectId,
      data: {
        run: {
          id: e.run!.id,
          counter: 7,
          status: 'failed',
          startTime: expect.stringMatching(ISO),
          endTime: expect.stringMatching(ISO),
          duration: 60000,
          testStats: { total: 10, passed: 9, failed: 1, skipped: 0, flaky: 0, timedOut: 0, totalAttempts: 10, retriedTests: 0 },
          metadata: { git: { branch: 'main', environment: 'ci', commit: { hash: 'abc123', message: 'Fix things', author: 'Ada' } } },
          url: e.run!.url,
        },
      },
    });
    await expectSigned('/ok', hook.secret);

    const list = await settled(hook._id);
    expect(list.pagination).toEqual({ page: 1, limit: 10, total: 1, hasMore: false });
    expect(list.data[0]).toEqual({
      _id: got!.headers['x-service-delivery'],
      webhookId: hook._id,
      event: 'RUN_FINISHED',
      runId: e.run!.id,
      status: 'success',
      attempt: 1,
      nextAttemptAt: null,
      statusCode: 200,
      responseMs: expect.any(Number),
      error: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(list.data[0]).not.toHaveProperty('payload');
    expect(await subscription(hook._id)).toMatchObject({
      consecutiveFailures: 0,
      active: true,
      lastDeliveryAt: expect.stringMatching(ISO),
    });
  });

  it('retries after 500, 500 and succeeds on attempt 3 with the same X-Service-Delivery and body each time', async () => {
    receiver.answer('/flaky', [500, 500, 200]);
    const hook = await subscribe('/flaky', { events: ['run.started'] });
    const e = runEvent({ projectId: t.projectId, type: 'RUN_STARTED' });
    await events.publish(e);
    await receiver.waitFor(() => receiver.at('/flaky').length === 3, 30000);
    const hits = receiver.at('/flaky');
    expect(hits.map((h) => h.answered)).toEqual([500, 500, 200]);
    expect(new Set(hits.map((h) => h.headers['x-service-delivery'])).size).toBe(1);
    expect(new Set(hits.map((h) => h.body.toString('utf8'))).size).toBe(1);
    expect(hits.every((h) => h.headers['x-service-event'] === 'RUN_STARTED')).toBe(true);
    expect(JSON.parse(hits[0]!.body.toString()).event).toBe('RUN_STARTED');
    expect(JSON.parse(hits[0]!.body.toString()).eventName).toBe('run.started');
    await expectSigned('/flaky', hook.secret);

    const list = await settled(hook._id);
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      _id: hits[0]!.headers['x-service-delivery'],
      status: 'success',
      attempt: 3,
      statusCode: 200,
      error: null,
      nextAttemptAt: null,
    });
    // Two failures then a success: the consecutive count is back to 0, the subscription stays on.
    expect(await subscription(hook._id)).toMatchObject({ active: true, consecutiveFailures: 0 });
  });

  it('gives up after 5 attempts of HTTP 500, disables the subscription, and PATCH active:true re-enables it', async () => {
    receiver.answer('/down', [500]);
    const hook = await subscribe('/down');
    await subscribe('/sentinel');
    const runId = 'run-down-1';
    await events.publish(runEvent({ projectId: t.projectId, type: 'RUN_FINISHED', runId }));
    await receiver.waitFor(() => receiver.at('/down').length === 5, 30000);
    const list = await settled(hook._id);
    expect(list.data[0]).toMatchObject({ status: 'failed', attempt: 5, statusCode: 500, error: 'HTTP 500', nextAttemptAt: null });
    const disabled = await subscription(hook._id);
    expect(disabled).toMatchObject({ active: false, consecutiveFailures: 5, disabledReason: expect.stringContaining('5 consecutive') });
    expect(new Set(receiver.at('/down').map((h) => h.headers['x-service-delivery'])).size).toBe(1);

    // Disabled: a new event creates no delivery for it. The sentinel subscription sees the same events
    // (same run key, so the same partition, in order), which tells when the consumer has passed them.
    const e2 = runEvent({ projectId: t.projectId, type: 'RUN_FINISHED', runId });
    await events.publish(e2);
    await receiver.waitFor(() => receiver.at('/sentinel').some((h) => JSON.parse(h.body.toString()).id === e2.eventId), 30000);
    expect((await deliveries(hook._id)).pagination.total).toBe(1);
    expect(receiver.at('/down')).toHaveLength(5);

    const enabled = await api.patch(`/${t.projectId}/webhooks/${hook._id}`, { active: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ active: true, consecutiveFailures: 0, disabledReason: null });

    receiver.answer('/down', [200]);
    const e3 = runEvent({ projectId: t.projectId, type: 'RUN_FINISHED', runId });
    await events.publish(e3);
    await receiver.waitFor(() => receiver.at('/down').some((h) => JSON.parse(h.body.toString()).id === e3.eventId), 30000);
    const after = await eventually(
      () => deliveries(hook._id, '?status=success'),
      (b) => b.data.length === 1,
      30000,
      'the delivery after re-enabling',
    );
    expect(after.data[0]).toMatchObject({ attempt: 1, statusCode: 200 });
    const failed = await deliveries(hook._id, '?status=failed');
    expect(failed.pagination.total).toBe(1);
    expect(failed.data.every((d: any) => d.status === 'failed')).toBe(true);
    // The disabled delivery was not resumed by re-enabling.
    expect(receiver.at('/down')).toHaveLength(6);
  });

  it('counts a redirect (302) as a failed attempt, recorded with its code, and never follows it', async () => {
    receiver.answer('/moved', [302, 200]);
    const hook = await subscribe('/moved');
    await events.publish(runEvent({ projectId: t.projectId, type: 'RUN_FINISHED' }));
    await receiver.waitFor(() => receiver.at('/moved').length === 2, 30000);
    const list = await settled(hook._id);
    expect(list.data[0]).toMatchObject({ status: 'success', attempt: 2, statusCode: 200 });

    receiver.answer('/moved-always', [302]);
    const always = await subscribe('/moved-always');
    await events.publish(runEvent({ projectId: t.projectId, type: 'RUN_FINISHED' }));
    await receiver.waitFor(() => receiver.at('/moved-always').length === 5, 30000);
    const failed = await settled(always._id);
    expect(failed.data[0]).toMatchObject({ status: 'failed', attempt: 5, statusCode: 302, error: expect.stringContaining('redirect') });
    expect(await subscription(always._id)).toMatchObject({ active: false, consecutiveFailures: 5 });
    expect(receiver.at('/redirected')).toHaveLength(0);
  });

  it('filters RUN_FINISHED by conditions.outcome (failed = 1+ failed or timed-out tests) and ignores it for RUN_STARTED', async () => {
    const p = await sys.admin.tenant('owner');
    const papi = sys.api(p.token);
    const sub = async (path: string, body: Record<string, unknown>) =>
      (await papi.post(`/${p.projectId}/webhooks`, { url: receiver.url(path), ...body })).body.data;
    const any = await sub('/o-any', { events: ['RUN_STARTED', 'RUN_FINISHED'] });
    const onlyFailed = await sub('/o-failed', { events: ['RUN_FINISHED'], conditions: { outcome: 'failed' } });
    const onlyPassed = await sub('/o-passed', { events: ['RUN_FINISHED'], conditions: { outcome: 'passed' } });
    const startedFailed = await sub('/o-started', { events: ['RUN_STARTED'], conditions: { outcome: 'failed' } });
    const ev = {
      started: runEvent({ projectId: p.projectId, type: 'RUN_STARTED' }),
      failed: runEvent({ projectId: p.projectId, type: 'RUN_FINISHED', failed: 2 }),
      timedOut: runEvent({ projectId: p.projectId, type: 'RUN_FINISHED', timedOut: 1 }),
      passed: runEvent({ projectId: p.projectId, type: 'RUN_FINISHED', failed: 0 }),
    };
    await events.publish(...Object.values(ev));
    // `any` takes all four; once it has them, every event has been consumed (one statement per event).
    await receiver.waitFor(() => receiver.at('/o-any').length === 4, 30000);
    const ids = (path: string) => receiver.at(path).map((h) => JSON.parse(h.body.toString()).id as string);
    const total = async (hookId: string) => (await papi.get(`/${p.projectId}/webhooks/${hookId}/deliveries`)).body.pagination.total;
    expect(await total(any._id)).toBe(4);
    expect(await total(onlyFailed._id)).toBe(2);
    expect(await total(onlyPassed._id)).toBe(1);
    expect(await total(startedFailed._id)).toBe(1);
    await receiver.waitFor(
      () => receiver.at('/o-failed').length === 2 && receiver.at('/o-passed').length === 1 && receiver.at('/o-started').length === 1,
      30000,
    );
    expect(ids('/o-failed').sort()).toEqual([ev.failed.eventId, ev.timedOut.eventId].sort());
    expect(ids('/o-passed')).toEqual([ev.passed.eventId]);
    expect(ids('/o-started')).toEqual([ev.started.eventId]);
  });

  it('never delivers a replayed event twice (one row per event and subscription)', async () => {
    const hook = await subscribe('/replay');
    const runId = 'run-replay-1';
    const e = runEvent({ projectId: t.projectId, type: 'RUN_FINISHED', runId });
    const after = runEvent({ projectId: t.projectId, type: 'RUN_FINISHED', runId });
    await events.publish(e, e);
    await events.publish(e, after);
    await receiver.waitFor(() => receiver.at('/replay').some((h) => JSON.parse(h.body.toString()).id === after.eventId), 30000);
    const list = await settled(hook._id);
    expect(list.pagination.total).toBe(2);
    expect(receiver.at('/replay').filter((h) => JSON.parse(h.body.toString()).id === e.eventId)).toHaveLength(1);
  });

  it('stops pending retries when the subscription is disabled by PATCH active:false', async () => {
    receiver.answer('/stop', [500]);
    const hook = await subscribe('/stop');
    await events.publish(runEvent({ projectId: t.projectId, type: 'RUN_FINISHED' }));
    await receiver.waitFor(() => receiver.at('/stop').length >= 1, 30000);
    const off = await api.patch(`/${t.projectId}/webhooks/${hook._id}`, { active: false });
    expect(off.body.data.active).toBe(false);
    const list = await settled(hook._id);
    expect(list.data[0]).toMatchObject({ status: 'failed', nextAttemptAt: null });
    const seen = receiver.at('/stop').length;
    expect(seen).toBeLessThan(5);
    // Well past the remaining retry delays: nothing more arrives.
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.at('/stop')).toHaveLength(seen);
  });
  it('counts attempts, created deliveries and disabled subscriptions in Prometheus metrics', async () => {
    const res = await fetch(`http://127.0.0.1:${sys.system.ports.services.webhooks!.httpPort}/metrics`);
    const text = await res.text();
    const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
    expect(value(/^webhook_delivery_attempts_total\{outcome="success",status_class="2xx"[^}]*\} (\d+)/m)).toBeGreaterThan(0);
    expect(value(/^webhook_delivery_attempts_total\{outcome="failed",status_class="5xx"[^}]*\} (\d+)/m)).toBeGreaterThanOrEqual(5);
    expect(value(/^webhook_delivery_attempts_total\{outcome="failed",status_class="3xx"[^}]*\} (\d+)/m)).toBeGreaterThanOrEqual(6);
    expect(value(/^webhook_subscriptions_disabled_total\{[^}]*\} (\d+)/m)).toBeGreaterThanOrEqual(2);
    expect(value(/^webhook_deliveries_created_total\{[^}]*\} (\d+)/m)).toBeGreaterThan(0);
  });

  // Last: the restart resets the counters the test above reads, and sweeps the deliveries of every test before.
  it('deletes finished deliveries WEBHOOK_DELIVERY_RETENTION_DAYS after their event; pending ones and subscriptions stay', async () => {
    // A retention of 10 s swept every second (room to see the delivery before it goes, on a loaded machine too), and
    // a retry an hour away, so a failed first attempt stays pending.
    const RETENTION_MS = 10_000;
    await sys.system.restart('webhooks', {
      WEBHOOK_DELIVERY_RETENTION_DAYS: String(RETENTION_MS / 86_400_000),
      WEBHOOK_DELIVERY_SWEEP_INTERVAL_SECONDS: '1',
      WEBHOOK_RETRY_DELAYS_SECONDS: '3600',
    });
    receiver.answer('/kept-pending', [500]);
    const done = await subscribe('/expires');
    const waiting = await subscribe('/kept-pending');
    await events.publish(runEvent({ projectId: t.projectId, type: 'RUN_FINISHED' }));
    const delivered = await settled(done._id);
    expect(delivered.data).toMatchObject([{ status: 'success' }]);
    const createdAt = Date.parse(delivered.data[0].createdAt);
    const pending = await eventually(
      () => deliveries(waiting._id),
      (b) => b.data[0]?.attempt === 1 && b.data[0]?.status === 'pending' && b.data[0]?.nextAttemptAt !== null,
      30000,
      'a pending retry',
    );

    const gone = await eventually(
      () => deliveries(done._id),
      (b) => b.pagination.total === 0,
      30000,
      'the expired delivery to be deleted',
    );
    expect(gone.data).toEqual([]);
    // Not before its retention was over.
    expect(Date.now() - createdAt).toBeGreaterThanOrEqual(RETENTION_MS);
    // Older than the retention too, but its retry is due: kept as it was.
    const still = await deliveries(waiting._id);
    expect(still.pagination.total).toBe(1);
    expect(still.data[0]).toMatchObject({ _id: pending.data[0]._id, status: 'pending', attempt: 1 });
    expect(Date.now() - Date.parse(still.data[0].createdAt)).toBeGreaterThan(RETENTION_MS);
    // The subscription itself stays, with its last delivery.
    expect(await subscription(done._id)).toMatchObject({ _id: done._id, active: true, lastDeliveryAt: expect.stringMatching(ISO) });

    const metrics = await (await fetch(`http://127.0.0.1:${sys.system.ports.services.webhooks!.httpPort}/metrics`)).text();
    expect(Number(/^webhook_deliveries_swept_total\{[^}]*\} (\d+)/m.exec(metrics)?.[1] ?? 0)).toBeGreaterThanOrEqual(1);
  });
});
