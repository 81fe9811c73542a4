/**
 * The `webhooks` route family over `app.inject`, with an in-memory webhooks service: what each route asks the
 * service (both event spellings become the proto enum; the principal is forwarded), the JSON it answers (the
 * contract's shapes and the webhook pagination variant), and what the gateway refuses before any call.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { DeliveryStatus, Outcome, Source, WebhookEvent } from '@assay/proto/assay/webhooks/v1/webhooks_pb';
import { gatewayHarness, type Harness } from './harness';

const created = timestampFromDate(new Date('2026-01-02T03:04:05.000Z'));
const subscription = (over: Record<string, unknown> = {}) => ({
  id: 'a'.repeat(24),
  projectId: 'p',
  url: 'https://hooks.example.test/a',
  events: [WebhookEvent.RUN_STARTED, WebhookEvent.RUN_FINISHED],
  outcome: Outcome.FAILED,
  active: true,
  description: 'CI',
  source: Source.ZAPIER,
  consecutiveFailures: 0,
  createdAt: created,
  updatedAt: created,
  ...over,
});

let h: Harness;
beforeAll(async () => {
  h = await gatewayHarness({
    webhooks: {
      async listSubscriptions() {
        return { subscriptions: [subscription()], page: { page: 2, limit: 10, total: 11n } };
      },
      async createSubscription(req) {
        return { subscription: subscription({ projectId: req.projectId, events: req.events }), secret: 'whsec_test' };
      },
      async getSubscription(req) {
        return { subscription: subscription({ id: req.id }) };
      },
      async updateSubscription(req) {
        return { subscription: subscription({ id: req.id, active: req.active ?? true }) };
      },
      async deleteSubscription() {
        return {};
      },
      async listDeliveries(req) {
        return {
          deliveries: [
            {
              id: 'd'.repeat(24),
              webhookId: req.webhookId,
              event: WebhookEvent.RUN_FINISHED,
              runId: 'r'.repeat(24),
              status: DeliveryStatus.FAILED,
              attempt: 2,
              statusCode: 500,
              responseMs: 12,
              error: 'HTTP 500',
              createdAt: created,
              updatedAt: created,
            },
          ],
          page: { page: 1, limit: 25, total: 1n },
        };
      },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
});

const P = () => `/api/v1/public/${h.projectId}`;

describe('webhooks routes', () => {
  it('create: either event spelling becomes the proto enum, the caller is forwarded, 201 with the secret once', async () => {
    const res = await h.request({
      method: 'POST',
      url: `${P()}/webhooks`,
      payload: {
        url: 'https://hooks.example.test/a',
        events: ['run.started', 'RUN_FINISHED'],
        conditions: { outcome: 'failed' },
        source: 'zapier',
      },
    });
    expect(res.statusCode).toBe(201);
    expect(h.calls).toEqual([
      {
        method: 'createSubscription',
        request: expect.objectContaining({
          projectId: h.projectId,
          events: [WebhookEvent.RUN_STARTED, WebhookEvent.RUN_FINISHED],
          outcome: Outcome.FAILED,
          source: Source.ZAPIER,
        }),
        principal: h.caller('owner').principal,
      },
    ]);
    expect(res.json().data).toMatchObject({
      _id: 'a'.repeat(24),
      events: ['RUN_STARTED', 'RUN_FINISHED'],
      conditions: { outcome: 'failed' },
      source: 'zapier',
      disabledReason: null,
      lastDeliveryAt: null,
      createdAt: '2026-01-02T03:04:05.000Z',
      secret: 'whsec_test',
    });
  });

  it.each([
    ['an unknown event', { url: 'https://h.test', events: ['RUN_PAUSED'] }, 'body.events.0'],
    ['no event', { url: 'https://h.test', events: [] }, 'body.events'],
    ['an unknown property', { url: 'https://h.test', events: ['RUN_STARTED'], secret: 'mine' }, 'body.secret'],
    ['an unknown outcome', { url: 'https://h.test', events: ['RUN_STARTED'], conditions: { outcome: 'flaky' } }, 'body.conditions.outcome'],
    [
      'a description over 200 characters',
      { url: 'https://h.test', events: ['RUN_STARTED'], description: 'x'.repeat(201) },
      'body.description',
    ],
  ])('create refuses %s with 400 before calling the service', async (_label, payload, path) => {
    const res = await h.request({ method: 'POST', url: `${P()}/webhooks`, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(h.calls).toEqual([]);
  });

  it('management needs owner or admin (403 for member, viewer and api keys); reads need no more than membership', async () => {
    for (const as of ['member', 'viewer', 'api_key'] as const) {
      const res = await h.request({ as, method: 'DELETE', url: `${P()}/webhooks/${'a'.repeat(24)}` });
      expect([as, res.statusCode]).toEqual([as, 403]);
    }
    expect(h.calls).toEqual([]);
    expect((await h.request({ as: 'viewer', method: 'GET', url: `${P()}/webhooks/${'a'.repeat(24)}` })).statusCode).toBe(200);
    expect((await h.request({ as: 'admin', method: 'DELETE', url: `${P()}/webhooks/${'a'.repeat(24)}` })).json()).toEqual({
      success: true,
      data: { _id: 'a'.repeat(24), deleted: true },
    });
  });

  it('list: the page asked for reaches the service; the answer uses the webhook pagination variant', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/webhooks?page=2&limit=10&unknown=1` });
    expect(res.statusCode).toBe(200);
    expect(h.calls[0]!.request).toMatchObject({ page: { page: 2, limit: 10 } });
    expect(res.json().pagination).toEqual({ page: 2, limit: 10, total: 11, hasMore: false });
    expect((await h.request({ method: 'GET', url: `${P()}/webhooks?limit=7` })).json().error.code).toBe('INVALID_LIMIT');
  });

  it('update: partial, `active` forwarded; an empty body is 400 before any call', async () => {
    const res = await h.request({ method: 'PATCH', url: `${P()}/webhooks/${'a'.repeat(24)}`, payload: { active: false } });
    expect(res.statusCode).toBe(200);
    expect(h.calls[0]!.request).toMatchObject({ id: 'a'.repeat(24), active: false });
    expect(res.json().data.active).toBe(false);
    const empty = await h.request({ method: 'PATCH', url: `${P()}/webhooks/${'a'.repeat(24)}`, payload: {} });
    expect(empty.statusCode).toBe(400);
    expect(h.calls).toHaveLength(1);
  });

  it('deliveries: the status filter becomes the proto enum; an unknown status is 400', async () => {
    const res = await h.request({ method: 'GET', url: `${P()}/webhooks/${'a'.repeat(24)}/deliveries?status=failed&limit=25` });
    expect(res.statusCode).toBe(200);
    expect(h.calls[0]!.request).toMatchObject({ status: DeliveryStatus.FAILED, page: { page: 1, limit: 25 } });
    expect(res.json().data[0]).toMatchObject({ event: 'RUN_FINISHED', status: 'failed', attempt: 2, statusCode: 500, nextAttemptAt: null });
    expect((await h.request({ method: 'GET', url: `${P()}/webhooks/${'a'.repeat(24)}/deliveries?status=late` })).statusCode).toBe(400);
  });

  it('a project the token does not cover is 404, a missing token 401, before any call', async () => {
    expect((await h.request({ method: 'GET', url: `/api/v1/public/${'9'.repeat(24)}/webhooks` })).statusCode).toBe(404);
    expect((await h.app.inject({ method: 'GET', url: `${P()}/webhooks` })).statusCode).toBe(401);
    expect(h.calls).toEqual([]);
  });
});
