/**
 * Webhook subscriptions (spec §4.3): list, create (secret shown once), get, partial update, delete, and the
 * delivery history. Owner/admin for create, update and delete (`access: 'webhook-admin'`); reads for any
 * organization member. Lists use the webhook pagination variant `{page, limit, total, hasMore}`.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Ok, ok } from '@assay/contracts/common/envelope';
import { ProjectParams } from '@assay/contracts/common/json';
import { PageQuery, pageOf } from '@assay/contracts/common/pagination';
import {
  CreatedWebhookSchema,
  CreateWebhookBody,
  DeliveriesQuery,
  DeliverySchema,
  deliveryStatus,
  deliveryToJson,
  eventsToProto,
  OkWebhookPage,
  outcome,
  source,
  UpdateWebhookBody,
  webhookPagination,
  WebhookParams,
  WebhookSchema,
  webhookToJson,
} from '@assay/contracts/webhooks/webhooks';
import { MAX_SUBSCRIPTIONS_PER_PROJECT } from '@assay/contracts/webhooks/values';
import { typed } from '../../typed';

const TAGS = ['Webhooks'];
/** Reads of subscriptions and deliveries are for organization members: the webhooks service refuses a project api key (403). */
const MEMBER_READ = { errors: ['FORBIDDEN' as const] };

export default async function webhookRoutes(fastify: FastifyInstance) {
  const app = typed(fastify);

  app.get(
    '/:projectId/webhooks',
    {
      config: MEMBER_READ,
      schema: {
        tags: TAGS,
        summary: 'List webhook subscriptions',
        params: ProjectParams,
        querystring: Type.Object(PageQuery()),
        response: { 200: OkWebhookPage(WebhookSchema) },
      },
    },
    async (request) => {
      const { page, limit } = pageOf(request.query);
      const res = await app.services.webhooks.listSubscriptions(
        { projectId: request.params.projectId, page: { page, limit } },
        request.callOptions(),
      );
      return {
        success: true as const,
        data: res.subscriptions.map(webhookToJson),
        pagination: webhookPagination(page, limit, Number(res.page?.total ?? 0)),
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
        description: `A project has at most ${MAX_SUBSCRIPTIONS_PER_PROJECT} subscriptions (one run event is delivered to each of them); a create beyond that is 409 CONFLICT.`,
        params: ProjectParams,
        body: CreateWebhookBody,
        response: { 201: Ok(CreatedWebhookSchema) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const res = await app.services.webhooks.createSubscription(
        {
          projectId: request.params.projectId,
          url: body.url,
          events: eventsToProto(body.events),
          outcome: body.conditions?.outcome === undefined ? undefined : outcome.toProto(body.conditions.outcome),
          description: body.description,
          source: body.source === undefined ? undefined : source.toProto(body.source),
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
      config: MEMBER_READ,
      schema: { tags: TAGS, summary: 'Get a webhook subscription', params: WebhookParams, response: { 200: Ok(WebhookSchema) } },
    },
    async (request) => {
      const { projectId, webhookId } = request.params;
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
      const { projectId, webhookId } = request.params;
      const { body } = request;
      const res = await app.services.webhooks.updateSubscription(
        {
          projectId,
          id: webhookId,
          url: body.url,
          events: body.events ? { events: eventsToProto(body.events) } : undefined,
          outcome: body.conditions?.outcome === undefined ? undefined : outcome.toProto(body.conditions.outcome),
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
      const { projectId, webhookId } = request.params;
      await app.services.webhooks.deleteSubscription({ projectId, id: webhookId }, request.callOptions());
      return ok({ _id: webhookId, deleted: true as const });
    },
  );

  app.get(
    '/:projectId/webhooks/:webhookId/deliveries',
    {
      config: MEMBER_READ,
      schema: {
        tags: TAGS,
        summary: 'List the deliveries of a subscription, newest first (payload excluded)',
        description:
          'A finished delivery is kept WEBHOOK_DELIVERY_RETENTION_DAYS (30 by default) after its event, then deleted with its attempts; a pending one is kept until its retries end.',
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: { 200: OkWebhookPage(DeliverySchema) },
      },
    },
    async (request) => {
      const { projectId, webhookId } = request.params;
      const { page, limit } = pageOf(request.query);
      const { status } = request.query;
      const res = await app.services.webhooks.listDeliveries(
        { projectId, webhookId, status: status === undefined ? undefined : deliveryStatus.toProto(status), page: { page, limit } },
        request.callOptions(),
      );
      return {
        success: true as const,
        data: res.deliveries.map(deliveryToJson),
        pagination: webhookPagination(page, limit, Number(res.page?.total ?? 0)),
      };
    },
  );
}
