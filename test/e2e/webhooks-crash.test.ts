/**
 * Crash safety of the dispatcher: the webhooks service is SIGKILLed while deliveries are due (some waiting
 * for their retry, some in flight, some never tried), then restarted. Every delivery completes, and the
 * receiver, deduplicating by `X-Service-Delivery`, processes each exactly once. Delivery is at least once:
 * an attempt in flight at the kill may arrive twice, always with the same delivery id, which is what lets
 * the receiver tell (the test counts such duplicates and checks they carry known ids and identical bodies).
 */
import { RunEventPublisher, runEvent, testSystem, WebhookReceiver, type Api, type Tenant } from '@assay/testkit';
import { eventually, privateSystem, type PrivateSystem } from './webhook-support';

jest.setTimeout(180000);

// Many subscriptions with few events each: every delivery fails once, and no subscription may reach the
// 5 consecutive failed attempts that would disable it.
const SUBSCRIPTIONS = 25;
const EVENTS = 2;
const TOTAL = SUBSCRIPTIONS * EVENTS;

describe('webhook dispatcher crash (SIGKILL) and restart', () => {
  let sys: PrivateSystem;
  let t: Tenant;
  let api: Api;
  let receiver: WebhookReceiver;
  let events: RunEventPublisher;

  beforeAll(async () => {
    // A small concurrency so that, at the kill, deliveries are in every state.
    [sys, receiver] = await Promise.all([privateSystem({ WEBHOOK_CONCURRENCY: '4' }), new WebhookReceiver().start()]);
    t = await sys.admin.tenant('owner');
    api = sys.api(t.token);
    events = new RunEventPublisher(testSystem().infra.KAFKA_BROKERS);
  });
  afterAll(async () => {
    await events?.close();
    await receiver?.close();
    await sys?.stop();
  });

  it('completes every delivery exactly once per delivery id after a SIGKILL while deliveries are due', async () => {
    // The receiver processes a delivery the first time it answers 2xx for its id; a later copy is a duplicate.
    const processed = new Map<string, string>();
    const duplicates: { id: string; body: string }[] = [];
    const firstSeen = new Set<string>();
    // The kill comes while a retry has reached the receiver but its 200 is not answered yet: the receiver
    // has processed it, the dispatcher cannot have recorded it, so it will come again (same id).
    let killNow!: () => void;
    const killTime = new Promise<void>((resolve) => (killNow = resolve));
    receiver.answer('/crash', (hit, req) => {
      const id = String(req.headers['x-service-delivery']);
      if (!firstSeen.has(id)) {
        firstSeen.add(id);
        return 500; // every delivery fails once, so retries are due when the service dies
      }
      if (hit >= 15) killNow();
      return 200;
    });
    receiver.delay('/crash', 300); // answers take a while, so attempts are in flight at the kill

    const hooks: string[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const res = await api.post(`/${t.projectId}/webhooks`, { url: receiver.url('/crash'), events: ['RUN_FINISHED'] });
      expect(res.status).toBe(201);
      hooks.push(res.body.data._id);
    }
    await events.publish(...Array.from({ length: EVENTS }, () => runEvent({ projectId: t.projectId, type: 'RUN_FINISHED' })));

    // Some first attempts and some retries have happened; many deliveries are still due.
    await killTime;
    const webhooks = sys.system.processes.get('webhooks')!;
    await webhooks.kill();
    expect(webhooks.child.signalCode).toBe('SIGKILL');
    const seenAtKill = receiver.at('/crash').length;
    expect(seenAtKill).toBeLessThan(TOTAL * 2);

    await sys.system.restart('webhooks');
    const all = await eventually(
      async () => {
        const lists = await Promise.all(hooks.map((h) => api.get(`/${t.projectId}/webhooks/${h}/deliveries?limit=100`)));
        return lists.flatMap((l) => l.body.data as { _id: string; status: string; attempt: number }[]);
      },
      (ds) => ds.length === TOTAL && ds.every((d) => d.status === 'success'),
      90000,
      'every delivery to succeed after the restart',
    );

    for (const r of receiver.at('/crash')) {
      if (r.answered < 200 || r.answered >= 300) continue;
      const id = String(r.headers['x-service-delivery']);
      const body = r.body.toString('utf8');
      if (processed.has(id)) duplicates.push({ id, body });
      else processed.set(id, body);
    }
    const ids = new Set(all.map((d) => d._id));
    expect(ids.size).toBe(TOTAL);
    // Exactly once per delivery, as the deduplicating receiver sees it, and nothing it does not know.
    expect(processed.size).toBe(TOTAL);
    expect([...processed.keys()].sort()).toEqual([...ids].sort());
    // A duplicate is recognizable: a known delivery id with the very same body.
    // The retry in flight at the kill arrived again: a known delivery id with the very same body.
    expect(duplicates.length).toBeGreaterThanOrEqual(1);
    for (const d of duplicates) expect(processed.get(d.id)).toBe(d.body);
    process.stderr.write(
      `[webhooks-crash] ${TOTAL} deliveries; ${seenAtKill} requests before the kill; ` +
        `${duplicates.length} duplicate 2xx receipt(s) recognized by delivery id; ` +
        `max attempts ${Math.max(...all.map((d) => d.attempt))}\n`,
    );
  });
});
