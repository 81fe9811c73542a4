/**
 * The `webhooks` family's handlers (handlers/webhooks.ts over store/webhooks.ts and store/deliveries.ts), through
 * an in-memory Connect transport against a schema of their own: roles, defaults, the contract's value sets and
 * limits, the SSRF guard on literal targets, partial updates, deletion and the delivery history.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { fromConnectError } from '@assay/errors';
import { DeliveryStatus, Outcome, Source, WebhookEvent, WebhooksService } from '@assay/proto/assay/webhooks/v1/webhooks_pb';
import { formatCallers } from '@assay/service-kit';
import { as, inMemoryClient, principal, testContext, testSchema, type TestSchema } from '@assay/testkit';
import { MAX_SUBSCRIPTIONS_PER_PROJECT } from '@assay/contracts/webhooks/values';
import { loadWebhooksConfig } from '../../src/config';
import { routes } from '../../src/routes';
import { MIGRATIONS_DIR } from '../../src/service';
import { wire } from '../../src/wiring';
import { createDeliveriesForEvent } from '../../src/store/deliveries';

let db: TestSchema;
let client: ReturnType<typeof inMemoryClient<typeof WebhooksService>>;
const owner = as(principal('owner'));
const projectId = 'd'.repeat(24);

beforeAll(async () => {
  db = await testSchema(MIGRATIONS_DIR, 'webhooks');
  const config = loadWebhooksConfig({
    INTERNAL_AUTH_TOKEN: 'x'.repeat(32),
    INTERNAL_CALLERS: formatCallers({ gateway: 'g'.repeat(32) }),
    SECRETS_KEY: 'k'.repeat(48),
    LOG_LEVEL: 'silent',
  });
  const w = wire(testContext('webhooks', config, db.pool));
  client = inMemoryClient(WebhooksService, (router) => routes(router, w));
});
afterAll(() => db.drop());

async function failure(call: Promise<unknown>) {
  try {
    await call;
  } catch (err) {
    const e = fromConnectError(ConnectError.from(err));
    return { code: ConnectError.from(err).code, reason: e.reason, paths: (e.details ?? []).map((d) => d.path) };
  }
  throw new Error('the call succeeded');
}

const create = (over: Record<string, unknown> = {}) =>
  client.createSubscription({ projectId, url: 'https://hooks.example.test/a', events: [WebhookEvent.RUN_FINISHED], ...over }, owner);

describe('webhooks handlers', () => {
  it('creates with the defaults (outcome any, source api), events de-duplicated in canonical order, the secret once', async () => {
    const res = await create({ events: [WebhookEvent.RUN_FINISHED, WebhookEvent.RUN_STARTED, WebhookEvent.RUN_FINISHED] });
    expect(res.secret).toMatch(/^whsec_/);
    expect(res.subscription).toMatchObject({
      projectId,
      events: [WebhookEvent.RUN_STARTED, WebhookEvent.RUN_FINISHED],
      outcome: Outcome.ANY,
      source: Source.API,
      active: true,
      consecutiveFailures: 0,
    });
    const got = await client.getSubscription({ projectId, id: res.subscription!.id }, owner);
    expect(got.subscription!.id).toBe(res.subscription!.id);
    expect(Object.values(got.subscription!)).not.toContain(res.secret);
  });

  it('needs owner or admin to manage, any member to read; an api key reads nothing', async () => {
    const { subscription } = await create();
    for (const role of ['member', 'viewer'] as const) {
      expect(
        (await failure(client.createSubscription({ projectId, url: 'https://x.test', events: [1] }, as(principal(role))))).reason,
      ).toBe('FORBIDDEN');
      const read = await client.getSubscription({ projectId, id: subscription!.id }, as(principal(role)));
      expect(read.subscription!.id).toBe(subscription!.id);
    }
    const apiKey = as(principal(null, { tokenType: 'api_key', userId: null }));
    expect((await failure(client.listSubscriptions({ projectId }, apiKey))).reason).toBe('FORBIDDEN');
    expect((await failure(client.listSubscriptions({ projectId }))).code).toBe(Code.Unauthenticated);
  });

  it.each([
    ['an unspecified event', { events: [WebhookEvent.UNSPECIFIED] }, 'body.events.0'],
    ['no event', { events: [] }, 'body.events'],
    ['an unspecified outcome', { outcome: Outcome.UNSPECIFIED }, 'body.conditions.outcome'],
    ['an unspecified source', { source: Source.UNSPECIFIED }, 'body.source'],
    ['a javascript: URL', { url: 'javascript:alert(1)' }, 'body.url'],
    ['a URL with credentials', { url: 'https://u:p@hooks.example.test' }, 'body.url'],
    ['a URL over 2048 characters', { url: `https://hooks.example.test/${'a'.repeat(2040)}` }, 'body.url'],
    ['a loopback target', { url: 'http://127.0.0.1:8080/hook' }, 'body.url'],
    ['a private target', { url: 'http://10.1.2.3/hook' }, 'body.url'],
    ['a description over 200 characters', { description: 'd'.repeat(201) }, 'body.description'],
  ])('refuses %s with VALIDATION_ERROR at its path, and writes nothing', async (_label, over, path) => {
    const before = (await client.listSubscriptions({ projectId, page: { page: 1, limit: 100 } }, owner)).page!.total;
    expect(await failure(create(over))).toEqual({ code: Code.InvalidArgument, reason: 'VALIDATION_ERROR', paths: [path] });
    expect((await client.listSubscriptions({ projectId, page: { page: 1, limit: 100 } }, owner)).page!.total).toBe(before);
  });

  it('updates only what is sent; active false disables with a reason, active true re-enables and clears it', async () => {
    const { subscription } = await create({ description: 'first' });
    const id = subscription!.id;
    const u = await client.updateSubscription({ projectId, id, outcome: Outcome.FAILED }, owner);
    expect(u.subscription).toMatchObject({ outcome: Outcome.FAILED, description: 'first', url: subscription!.url });
    const off = await client.updateSubscription({ projectId, id, active: false }, owner);
    expect(off.subscription).toMatchObject({ active: false, disabledReason: expect.stringContaining('disabled') });
    const on = await client.updateSubscription({ projectId, id, active: true }, owner);
    expect(on.subscription).toMatchObject({ active: true, consecutiveFailures: 0 });
    expect(on.subscription!.disabledReason).toBeUndefined();
    expect(await failure(client.updateSubscription({ projectId, id }, owner))).toMatchObject({
      reason: 'VALIDATION_ERROR',
      paths: ['body'],
    });
    expect((await failure(client.updateSubscription({ projectId: 'e'.repeat(24), id, description: 'x' }, owner))).reason).toBe('NOT_FOUND');
  });

  it('pages the list (page info from the kit paging: limit clamped to 100)', async () => {
    const p = 'f'.repeat(24);
    for (let i = 0; i < 3; i++) await client.createSubscription({ projectId: p, url: `https://h${i}.example.test`, events: [1] }, owner);
    const first = await client.listSubscriptions({ projectId: p, page: { page: 1, limit: 2 } }, owner);
    expect(first.subscriptions).toHaveLength(2);
    expect(first.page).toMatchObject({ page: 1, limit: 2, total: 3n });
    const second = await client.listSubscriptions({ projectId: p, page: { page: 2, limit: 2 } }, owner);
    expect(second.subscriptions).toHaveLength(1);
    expect((await client.listSubscriptions({ projectId: p, page: { page: 1, limit: 1000 } }, owner)).page!.limit).toBe(100);
  });

  it('lists deliveries newest first, filtered by status; 404 for another project', async () => {
    const { subscription } = await create({ events: [WebhookEvent.RUN_STARTED, WebhookEvent.RUN_FINISHED] });
    // Events after the subscription: its created_at has microseconds, a Date only milliseconds (in the same
    // millisecond, `new Date()` would be before it and the events not for it).
    const now = new Date(Date.now() + 1);
    for (const [i, event] of (['RUN_STARTED', 'RUN_FINISHED'] as const).entries()) {
      await createDeliveriesForEvent(db.pool, {
        eventId: `ev-${subscription!.id}-${i}`,
        projectId,
        event,
        runId: 'r'.repeat(24),
        failed: false,
        eventAt: now,
        payload: '{}',
        now: new Date(now.getTime() + i),
      });
    }
    const all = await client.listDeliveries({ projectId, webhookId: subscription!.id }, owner);
    expect(all.deliveries.map((d) => d.event)).toEqual([WebhookEvent.RUN_FINISHED, WebhookEvent.RUN_STARTED]);
    expect(all.deliveries.every((d) => d.status === DeliveryStatus.PENDING)).toBe(true);
    const none = await client.listDeliveries({ projectId, webhookId: subscription!.id, status: DeliveryStatus.SUCCESS }, owner);
    expect(none.deliveries).toEqual([]);
    expect(
      (await failure(client.listDeliveries({ projectId, webhookId: subscription!.id, status: DeliveryStatus.UNSPECIFIED }, owner))).paths,
    ).toEqual(['query.status']);
    expect((await failure(client.listDeliveries({ projectId: 'e'.repeat(24), webhookId: subscription!.id }, owner))).reason).toBe(
      'NOT_FOUND',
    );
  });

  it(`caps a project at ${MAX_SUBSCRIPTIONS_PER_PROJECT} subscriptions (CONFLICT beyond), also under concurrent creates`, async () => {
    const p = '7'.repeat(24);
    const make = (i: number) => client.createSubscription({ projectId: p, url: `https://c${i}.example.test`, events: [1] }, owner);
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_PROJECT - 3; i++) await make(i);
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => make(100 + i)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    for (const o of outcomes.filter((x) => x.status === 'rejected')) {
      expect(fromConnectError(ConnectError.from((o as PromiseRejectedResult).reason)).reason).toBe('CONFLICT');
    }
    expect((await client.listSubscriptions({ projectId: p }, owner)).page!.total).toBe(BigInt(MAX_SUBSCRIPTIONS_PER_PROJECT));
  });

  it('deletes a subscription (then 404)', async () => {
    const { subscription } = await create();
    await client.deleteSubscription({ projectId, id: subscription!.id }, owner);
    expect((await failure(client.getSubscription({ projectId, id: subscription!.id }, owner))).reason).toBe('NOT_FOUND');
    expect((await failure(client.deleteSubscription({ projectId, id: subscription!.id }, owner))).reason).toBe('NOT_FOUND');
  });
});
