/**
 * OpenAPI 3.1, generated from the route schemas (never hand-written), served at
 * /api/v1/public/openapi.json, with a reference page at /docs. The /api/public/v1 alias routes are hidden:
 * they are the same operations.
 *
 * On top of what each route declares, the gateway's policies are described here once, for every route:
 * an `operationId` when the route sets none (method + path), the `Idempotency-Key` header (added to the
 * route's header schema by the idempotency plugin), the `RateLimit-*`, `Retry-After` and
 * `Idempotent-Replayed` response headers, the error statuses with the codes each operation can answer
 * (plugins/app/error-responses.ts), the rate-limit buckets of each operation, an example of every request
 * body, path parameter, success and error answer (./openapi-examples.ts), and the `webhooks` the service sends.
 */
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ERROR_TABLE, type Reason } from '@assay/errors';
import { WEBHOOK_EVENTS, WEBHOOK_EVENT_NAMES, WEBHOOK_HEADERS, type WebhookEventName } from '@assay/contracts/webhooks/values';
import { WebhookDeliveryHeaders, WebhookPayloadSchema } from '@assay/contracts/webhooks/webhooks';
import { componentSchemas } from '../../schemas/components';
import { bucketsOf } from '../app/rate-limit';
import { errorReasonsOf } from '../app/error-responses';
import { errorExample, exampleFor } from './openapi-examples';

export const OPENAPI_PATH = '/api/v1/public/openapi.json';

/**
 * The reference page loads its scripts, styles, images and the document from the gateway itself; nothing
 * inline, nothing from elsewhere (swagger-ui sets inline styles from script, hence 'unsafe-inline' for styles).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "base-uri 'none'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
].join('; ');

const TAG_DESCRIPTIONS: Record<string, string> = {
  'Token Info': 'Verify a token and see its scopes and rate-limit quotas.',
  'Test Runs': 'Automated test runs and their results.',
  'Test Cases': 'Single automated test results and their history.',
  Specs: 'Health of spec files across runs.',
  'Manual Tests': 'Manual test suites, cases, releases, exploratory sessions and manual runs.',
  'Test Case Explorer': 'Every automated test across runs: flaky, failing, slow.',
  'Debug Bundle': 'Everything needed to debug a failing run, suite or test.',
  Dashboard: 'The project dashboard (fixed 30-day window).',
  Filters: 'Values seen in the project: environments, branches, developers, tags.',
  Reports: 'PDF reports.',
  Analytics: 'Aggregated analytics of automated test runs.',
  Webhooks: 'Signed outbound notifications of run lifecycle events, and their delivery history.',
  Usage: 'Plan usage and limits.',
  'Workflow Rules': 'Action rules (skip, quarantine, tag) applied at ingestion.',
  Ingestion: 'Upload automated test results (Playwright, JUnit, streaming) and their attachments.',
  Artifacts: 'Download stored attachments (screenshots, videos, traces, files) by signed URL or as a project member.',
  App: "The web app's own API: sign-in, invitations, the signed-in account and its personal access tokens (session cookie).",
};

/** What an error status means; the codes an operation answers with it are listed after this. */
const STATUS_DESCRIPTIONS: Record<string, string> = {
  '400': 'Invalid request (`error.details` names each invalid field).',
  '401': 'Missing, malformed, unknown, revoked or expired credentials.',
  '403': 'The role, the token type or a missing CSRF header does not allow this operation.',
  '404': 'Resource absent or not accessible to the caller (including a project the token does not cover).',
  '405': 'Wrong method on a known path (with `Allow`).',
  '408': 'The request body did not arrive in time.',
  '409': 'The resource state forbids this change, or the first request of this `Idempotency-Key` is still running.',
  '413': 'The body is over the size limit.',
  '415': 'The body is not of a supported content type.',
  '416': 'The requested byte range is outside the file.',
  '422': 'The `Idempotency-Key` was used with a different body.',
  '429': 'A rate limit or quota is used up. Wait `Retry-After` seconds.',
  '431': 'The request line and headers together are over the size limit (16 KiB by default): shorten the URL or the headers.',
  '500': 'Unexpected server failure. Retry with backoff.',
  '503': 'A service (or the rate-limit store) is temporarily unavailable. Retry after `Retry-After` seconds.',
};

const HEADERS = {
  'RateLimit-Limit': {
    description: 'Requests allowed in the window of the most constraining rate-limit bucket of this request.',
    schema: { type: 'integer', minimum: 1 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in that window.',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until that window resets (0–60).',
    schema: { type: 'integer', minimum: 0, maximum: 60 },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
};
const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

const BUCKET_TEXT: Record<string, string> = {
  reads: 'reads',
  writes: 'writes',
  manualRunCreate: 'manual run creation',
  pdf: 'PDF generation',
  ingest: 'ingestion',
};

const pascal = (s: string) => s.replace(/(^|[-_.\s])([a-z0-9])/gi, (_m, _sep, c: string) => c.toUpperCase());

/** `POST /api/v1/public/:projectId/manual-test-suites` → `postManualTestSuites`; other params → `By<Param>`. */
export function defaultOperationId(method: string, url: string): string {
  const rest = url.replace(/^\/api\/v1\/public(?=\/|$)/, '').replace(/^\/api(?=\/)/, '');
  const parts = rest
    .split('/')
    .filter((p) => p && p !== 'v1' && p !== ':projectId')
    .map((p) => (p.startsWith(':') ? `By${pascal(p.slice(1))}` : pascal(p)));
  return method.toLowerCase() + parts.join('');
}

interface MediaType {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

interface OpenApiOperation {
  description?: string;
  parameters?: { name: string; in: string; schema?: Record<string, unknown>; example?: unknown }[];
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, MediaType> }>;
  [key: string]: unknown;
}

const isBinary = (media: MediaType) => {
  const schema = media.schema as { format?: string } | undefined;
  return schema?.format === 'binary';
};

/** An example on every request body, path parameter and success answer that has none of its own. */
function addExamples(op: OpenApiOperation, components: Record<string, Record<string, unknown>>) {
  for (const param of op.parameters ?? []) {
    if (param.in !== 'path' || param.example !== undefined) continue;
    const value = exampleFor(param.schema, { components, name: param.name });
    if (value !== undefined) param.example = value;
  }
  const medias = [
    ...Object.values(op.requestBody?.content ?? {}),
    ...Object.entries(op.responses ?? {})
      .filter(([status]) => /^2\d\d$/.test(status))
      .flatMap(([, response]) => Object.values(response.content ?? {})),
  ];
  for (const media of medias) {
    if (media.example !== undefined || media.examples !== undefined || isBinary(media)) continue;
    const value = exampleFor(media.schema, { components });
    if (value !== undefined) media.example = value;
  }
}

/** The description and one example envelope per code of every error status of an operation. */
function describeErrors(op: OpenApiOperation, reasons: Reason[], components: Record<string, Record<string, unknown>>) {
  const body = op.requestBody?.content?.['application/json']?.schema as { $ref?: string; required?: string[] } | undefined;
  const bodySchema = body?.$ref ? (components[body.$ref.split('/').pop()!] as { required?: string[] } | undefined) : body;
  const queryParam = op.parameters?.find((p) => p.in === 'query')?.name;
  const input = { requiredBodyField: bodySchema?.required?.[0], queryParam };
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const codes = reasons.filter((r) => String(ERROR_TABLE[r].http) === status);
    if (codes.length === 0) continue;
    if (STATUS_DESCRIPTIONS[status] && (!response.description || response.description === 'Default Response')) {
      const list = codes.map((c) => `\`${c}\` (${ERROR_TABLE[c].message.replace(/\.$/, '')})`).join(', ');
      response.description = `${STATUS_DESCRIPTIONS[status]} Codes: ${list}.`;
    }
    const media = response.content?.['application/json'];
    if (media && media.example === undefined && media.examples === undefined) {
      media.examples = Object.fromEntries(
        codes.map((c) => [c, { summary: ERROR_TABLE[c].message, value: errorExample(c, c === 'VALIDATION_ERROR' ? input : {}) }]),
      );
    }
  }
}

const webhookOperationId = (event: WebhookEventName) =>
  `on${WEBHOOK_EVENT_NAMES[event].replace(/(^|\.)([a-z])/g, (_m, _dot, c: string) => c.toUpperCase())}`;

/**
 * The `webhooks` section: what the service POSTs to a subscription's URL per event (spec §6, CONTRACT §7), with
 * the body schema the webhooks service builds it from and the signature headers.
 */
function webhooksSection() {
  const headers = WebhookDeliveryHeaders.properties as Record<string, { description?: string; examples?: unknown[] }>;
  const payloads = (WebhookPayloadSchema.examples ?? []) as { event: string }[];
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => [
      event,
      {
        post: {
          operationId: webhookOperationId(event),
          tags: ['Webhooks'],
          summary: event === 'RUN_STARTED' ? 'An automated test run started' : 'An automated test run finished',
          description: [
            `Sent to every active subscription of the project that listens to \`${event}\`${event === 'RUN_FINISHED' ? ' and whose `conditions.outcome` matches the run (`failed`: 1 or more failed or timed-out tests; `passed`: none; `any`)' : ''}.`,
            'Verify `X-Service-Signature` over the raw body before parsing it (HMAC-SHA256 of `<t>.<raw body>` with the signing secret returned once by the create operation; reject a `t` more than 300 seconds from your clock); `@assay/webhook-verify` does it.',
            'Answer any 2xx to acknowledge. Any other answer, a redirect, a timeout or a refused connection is a failed attempt: retried after 1, 5, 30 and 120 minutes (5 attempts, same `X-Service-Delivery` and body); 5 consecutive failed attempts disable the subscription.',
          ].join('\n\n'),
          security: [],
          parameters: Object.entries(headers).map(([name, { description, examples, ...schema }]) => ({
            name,
            in: 'header',
            required: true,
            description,
            schema: name === WEBHOOK_HEADERS.event ? { type: 'string', enum: [event] } : schema,
            example: name === WEBHOOK_HEADERS.event ? event : examples?.[0],
          })),
          requestBody: {
            required: true,
            description: 'The event (`data.run` is the run as the runs list shows it).',
            content: {
              'application/json': {
                schema: { $ref: `#/components/schemas/${String(WebhookPayloadSchema.$id)}` },
                example: payloads.find((p) => p.event === event),
              },
            },
          },
          responses: {
            '2XX': { description: 'Acknowledged: the delivery is recorded as a success (the response body is not read).' },
            '4XX': { description: 'Not acknowledged (so is any status other than 2xx): the attempt failed and is retried.' },
          },
        },
      },
    ]),
  );
}

const X_AUTH = 'x-assay-auth';
const X_BUCKETS = 'x-assay-buckets';
const X_IDEMPOTENT = 'x-assay-idempotent';
const X_ERRORS = 'x-assay-errors';

/** Per route (lazily, with the final route config): operationId and the policy markers used below. */
function transform({ schema, url: routeUrl, route }: { schema: Record<string, unknown>; url: string; route: RouteOptions }) {
  let url = routeUrl;
  const method = Array.isArray(route.method) ? route.method[0]! : route.method;
  const config = (route.config ?? {}) as { auth?: string; rateBucket?: 'manualRunCreate' | 'pdf' | 'ingest'; idempotent?: boolean };
  const next: Record<string, unknown> = { ...schema };
  next.operationId ??= defaultOperationId(method, url);
  // A trailing wildcard (`/*`, a path of several segments) is documented as the parameter `path`.
  if (url.endsWith('/*')) {
    url = `${url.slice(0, -1)}:path`;
    const params = next.params as { properties?: Record<string, unknown>; required?: string[] } | undefined;
    if (params?.properties?.['*']) {
      const { '*': wildcard, ...others } = params.properties;
      next.params = {
        ...params,
        properties: { ...others, path: wildcard },
        required: [...(params.required ?? []).filter((r) => r !== '*'), 'path'],
      };
    }
  }
  next[X_AUTH] = config.auth ?? 'none';
  next[X_BUCKETS] = config.auth && config.auth !== 'none' ? bucketsOf(method, config.rateBucket) : [];
  next[X_IDEMPOTENT] = config.idempotent === true;
  next[X_ERRORS] = errorReasonsOf(route);
  return { schema: next, url };
}

/** The whole document: shared headers, tags, status descriptions, policy headers on every response. */
function transformObject({ openapiObject }: { openapiObject: Record<string, unknown> }) {
  const doc = openapiObject as {
    paths?: Record<string, Record<string, OpenApiOperation>>;
    components?: Record<string, unknown>;
    tags?: { name: string; description?: string }[];
  };
  const components = (doc.components ??= {});
  components.headers = { ...((components.headers as object) ?? {}), ...HEADERS };
  const schemas = (components.schemas ?? {}) as Record<string, Record<string, unknown>>;
  (doc as Record<string, unknown>).webhooks = webhooksSection();
  const usedTags = new Set<string>();
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(operations)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      for (const t of (op.tags as string[] | undefined) ?? []) usedTags.add(t);
      const authenticated = op[X_AUTH] !== 'none';
      const buckets = (op[X_BUCKETS] as string[] | undefined) ?? [];
      const idempotent = op[X_IDEMPOTENT] === true;
      const reasons = (op[X_ERRORS] as Reason[] | undefined) ?? [];
      delete op[X_AUTH];
      delete op[X_BUCKETS];
      delete op[X_IDEMPOTENT];
      delete op[X_ERRORS];
      addExamples(op, schemas);
      describeErrors(op, reasons, schemas);
      if (buckets.length > 0) {
        const limits = `Rate limits per token: ${buckets.map((b) => BUCKET_TEXT[b] ?? b).join(' and ')}; per IP before authentication.`;
        op.description = op.description ? `${op.description}\n\n${limits}` : limits;
      }
      for (const [status, response] of Object.entries(op.responses)) {
        if (response.description === 'Default Response') response.description = 'Success.';
        const headers: Record<string, unknown> = { ...(response.headers ?? {}) };
        // 401 and 431 are answered before authentication (431 by Node itself), so without the rate limit.
        if (authenticated && status !== '401' && status !== '431') {
          headers['RateLimit-Limit'] = headerRef('RateLimit-Limit');
          headers['RateLimit-Remaining'] = headerRef('RateLimit-Remaining');
          headers['RateLimit-Reset'] = headerRef('RateLimit-Reset');
        }
        if (status === '429' || status === '503') headers['Retry-After'] = headerRef('Retry-After');
        // Replayable: what the handler answered (success, or its own 400/403/404/409), never a rejection before it.
        if (idempotent && /^(2\d\d|400|403|404|409)$/.test(status)) headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
        if (Object.keys(headers).length > 0) response.headers = headers;
      }
    }
  }
  doc.tags = [...usedTags].sort().map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `${name} operations.` }));
  return doc;
}

export default fp(
  async function openapiPlugin(app: FastifyInstance, opts: { docs: boolean; serverUrl?: string }) {
    // Shared schemas referenced with Type.Ref by routes; they become OpenAPI components.
    for (const schema of componentSchemas) app.addSchema(schema);
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Assay public API',
          version: '1.0.0',
          description: [
            'Test analytics and manual testing. Every response uses the envelope `{success, data}` or `{success: false, error: {code, message}}`; branch on `error.code`.',
            'Authenticate with `Authorization: Bearer svc_pat_<token>`, or (the web app) with the `assay_session` cookie set by `POST /api/v1/app/login`, which acts as a token of its user over every project of their organizations; a state-changing request signed in with the cookie must also send `X-Assay-CSRF: 1`.',
            'Rate limits per token and minute: reads 100, writes 60, manual run creation 10, PDF generation 1, ingestion 600; per IP before authentication 200. Authenticated answers carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` of the most constraining bucket; a 429 carries `Retry-After`.',
            'Create (POST) operations accept an optional `Idempotency-Key` (at most 255 characters; replayed for 24 hours).',
            'Not described here: `POST /mcp`, the Model Context Protocol endpoint (Streamable HTTP, JSON-RPC) for AI assistants. It takes the same credentials; its tools call the operations below as the caller, under the same roles, project access and rate limits. See the README (MCP) or `npx @assay/mcp --help`.',
          ].join('\n\n'),
          license: { name: 'Proprietary', identifier: 'LicenseRef-Assay' },
        },
        servers: [{ url: opts.serverUrl ?? '/', description: 'this Assay installation' }],
        components: {
          securitySchemes: {
            bearerAuth: { type: 'http', scheme: 'bearer', description: 'Personal access token or project api key: `svc_pat_<token>`' },
            sessionCookie: {
              type: 'apiKey',
              in: 'cookie',
              name: 'assay_session',
              description: 'Web app session (POST /api/v1/app/login); state-changing requests also need the header `X-Assay-CSRF: 1`',
            },
            uploadKey: {
              type: 'apiKey',
              in: 'header',
              name: 'X-API-Key',
              description: 'Compatibility upload only: the project api key as `trx_production_<64 hex>`',
            },
          },
        },
        security: [{ bearerAuth: [] }, { sessionCookie: [] }],
      },
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
      transform: transform as never,
      transformObject: transformObject as never,
    });
    app.get(OPENAPI_PATH, { schema: { hide: true }, config: { auth: 'none' } }, async () => app.swagger());
    if (opts.docs) {
      await app.register(swaggerUi, {
        routePrefix: '/docs',
        staticCSP: DOCS_CSP,
        // No validator badge: it would load an image from another site (the CSP refuses it anyway).
        uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
        uiHooks: {},
      });
    }
  },
  { name: 'openapi' },
);
