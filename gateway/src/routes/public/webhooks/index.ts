/**
 * Webhook subscriptions (spec §4.3): list, create (secret shown once), get, partial update, delete, and the
 * delivery history. Owner/admin for create, update and delete (`access: 'webhook-admin'`); reads for any
 * organization member. Lists use the webhook pagination variant `{page, limit, total, hasMore}`.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '../../../schemas/envelope';
import { PageQuery, type PageQueryValue } from '../../../schemas/pagination';
import {
  CreatedWebhookSchema,
  CreateWebhookBody,
  DeliverySchema,
  deliveryToJson,
  UpdateWebhookBody,
  WebhookPagination,
  webhookPagination,
  WebhookSchema,
  webhookToJson,
  type CreateWebhookBodyValue,
  type UpdateWebhookBodyValue,
} from './schemas';

const ProjectParams = Type.Object({ projectId: Type.String() });
const WebhookParams = Type.Object({ projectId: Type.String(), webhookId: Type.String() });
const OkWebhookPage = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ success: Type.Literal(true), data: Type.Array(item), pagination: WebhookPagination });
const TAGS = ['Webhooks'];

export default async function webhookRoutes(app: FastifyInstance) {
  app.get(
    '/:projectId/webhooks',
    {
      schema: {
        tags: TAGS,
        summary: 'List webhook subscriptions',
        params: ProjectParams,
        querystring: Type.Object(PageQuery()),
        response: { 200: OkWebhookPage(WebhookSchema) },
      },
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const q = request.query as PageQueryValue;
      const res = await app.services.webhooks.listSubscriptions(
        { projectId, page: { page: q.page, limit: q.limit } },
        request.callOptions(),
      );
      return {
        success: true,
        data: res.subscriptions.map(webhookToJson),
        pagination: webhookPagination(q.page, q.limit, Number(res.page?.total ?? 0)),
      };
    },
  );

  app.post(
    '/:projectId/webhooks',
    {
      config: { access: 'webhook-admin', idempotent: true },
      schema: {
        tags: TAGS,
        summary: 'Create a webhook subscription (the response carries the signing secret, once)',
        params: ProjectParams,
        body: CreateWebhookBody,
        response: { 201: Ok(CreatedWebhookSchema) },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params as { projectId: string };
      const body = request.body as CreateWebhookBodyValue;
      const res = await app.services.webhooks.createSubscription(
        {
          projectId,
          url: body.url,
          events: body.events,
          outcome: body.conditions?.outcome,
          description: body.description,
          source: body.source,
        },
        request.callOptions(),
      );
      reply.code(201);
      return ok({ ...webhookToJson(res.subscription!), secret: res.secret });
    },
  );

  app.get(
    '/:projectId/webhooks/:webhookId',
    {
      schema: { tags: TAGS, summary: 'Get a webhook subscription', params: WebhookParams, response: { 200: Ok(WebhookSchema) } },
    },
    async (request) => {
      const { projectId, webhookId } = request.params as { projectId: string; webhookId: string };
      const res = await app.services.webhooks.getSubscription({ projectId, id: webhookId }, request.callOptions());
      return ok(webhookToJson(res.subscription!));
    },
  );

  app.patch(
    '/:projectId/webhooks/:webhookId',
    {
      config: { access: 'webhook-admin' },
      schema: {
        tags: TAGS,
        summary: 'Update a webhook subscription (partial; `active: true` re-enables it)',
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: Ok(WebhookSchema) },
      },
    },
    async (request) => {
      const { projectId, webhookId } = request.params as { projectId: string; webhookId: string };
      const body = request.body as UpdateWebhookBodyValue;
      const res = await app.services.webhooks.updateSubscription(
        {
          projectId,
          id: webhookId,
          url: body.url,
          events: body.events ? { events: body.events } : undefined,
          outcome: body.conditions?.outcome,
          active: body.active,
          description: body.description,
        },
        request.callOptions(),
      );
      return ok(webhookToJson(res.subscription!));
    },
  );

  app.delete(
    '/:projectId/webhooks/:webhookId',
    {
      config: { access: 'webhook-admin' },
      schema: {
        tags: TAGS,
        summary: 'Delete a webhook subscription and its delivery history',
        params: WebhookParams,
        response: { 200: Ok(Type.Object({ _id: Type.String(), deleted: Type.Literal(true) })) },
      },
    },
    async (request) => {
      const { projectId, webhookId } = request.params as { projectId: string; webhookId: string };
      await app.services.webhooks.deleteSubscription({ projectId, id: webhookId }, request.callOptions());
      return ok({ _id: webhookId, deleted: true as const });
    },
  );

  app.get(
    '/:projectId/webhooks/:webhookId/deliveries',
    {
      schema: {
        tags: TAGS,
        summary: 'List the deliveries of a subscription, newest first (payload excluded)',
        params: WebhookParams,
        querystring: Type.Object({
          ...PageQuery(),
          status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('success'), Type.Literal('failed')])),
        }),
        response: { 200: OkWebhookPage(DeliverySchema) },
      },
    },
    async (request) => {
      const { projectId, webhookId } = request.params as { projectId: string; webhookId: string };
      const q = request.query as PageQueryValue & { status?: string };
      const res = await app.services.webhooks.listDeliveries(
        { projectId, webhookId, status: q.status, page: { page: q.page, limit: q.limit } },
        request.callOptions(),
      );
      return {
        success: true,
        data: res.deliveries.map(deliveryToJson),
        pagination: webhookPagination(q.page, q.limit, Number(res.page?.total ?? 0)),
      };
    },
  );
}
