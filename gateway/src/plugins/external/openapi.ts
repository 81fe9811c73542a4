/**
 * OpenAPI 3.1, generated from the route schemas (never hand-written), served at
 * /api/v1/public/openapi.json, with a reference page at /docs. The /api/public/v1 alias routes are hidden:
 * they are the same operations.
 *
 * On top of what each route declares, the gateway's policies are described here once, for every route:
 * an `operationId` when the route sets none (method + path), the `Idempotency-Key` header (added to the
 * route's header schema by the idempotency plugin), the `RateLimit-*`, `Retry-After` and
 * `Idempotent-Replayed` response headers, a description of every error status, and the rate-limit buckets
 * of each operation.
 */
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { componentSchemas } from '../../schemas/components';
import { bucketsOf } from '../app/rate-limit';

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

const STATUS_DESCRIPTIONS: Record<string, string> = {
  '400': 'Invalid request: `VALIDATION_ERROR` (with `error.details`) or `INVALID_LIMIT`.',
  '401': 'Missing, malformed, unknown, revoked or expired token: `UNAUTHORIZED`, `TOKEN_REVOKED`, `TOKEN_EXPIRED`.',
  '403': 'The role or token type does not allow this operation: `FORBIDDEN`.',
  '404': 'Resource absent or not accessible to the token (including a project it does not cover): `NOT_FOUND`.',
  '405': 'Wrong method on a known path: `METHOD_NOT_ALLOWED` (with `Allow`).',
  '409':
    'The resource state forbids this change (`CONFLICT`), or an `Idempotency-Key` whose first request is still running (`IDEMPOTENCY_KEY_IN_PROGRESS`).',
  '413': 'The body is over the size limit: `PAYLOAD_TOO_LARGE`.',
  '415': 'The body is not JSON: `UNSUPPORTED_MEDIA_TYPE`.',
  '422': 'The `Idempotency-Key` was used with a different body: `IDEMPOTENCY_KEY_REUSE`.',
  '429': 'A rate limit is used up: `RATE_LIMIT_EXCEEDED`. Wait `Retry-After` seconds.',
  '500': 'Unexpected server failure: `INTERNAL_ERROR`. Retry with backoff.',
  '503': 'A service (or the rate-limit store) is temporarily unavailable: `SERVICE_UNAVAILABLE`. Retry after `Retry-After` seconds.',
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

interface OpenApiOperation {
  description?: string;
  responses?: Record<string, { description?: string; headers?: Record<string, unknown> }>;
  [key: string]: unknown;
}

const X_AUTH = 'x-assay-auth';
const X_BUCKETS = 'x-assay-buckets';
const X_IDEMPOTENT = 'x-assay-idempotent';

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
  const usedTags = new Set<string>();
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(operations)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      for (const t of (op.tags as string[] | undefined) ?? []) usedTags.add(t);
      const authenticated = op[X_AUTH] !== 'none';
      const buckets = (op[X_BUCKETS] as string[] | undefined) ?? [];
      const idempotent = op[X_IDEMPOTENT] === true;
      delete op[X_AUTH];
      delete op[X_BUCKETS];
      delete op[X_IDEMPOTENT];
      if (buckets.length > 0) {
        const limits = `Rate limits per token: ${buckets.map((b) => BUCKET_TEXT[b] ?? b).join(' and ')}; per IP before authentication.`;
        op.description = op.description ? `${op.description}\n\n${limits}` : limits;
      }
      for (const [status, response] of Object.entries(op.responses)) {
        if (STATUS_DESCRIPTIONS[status] && (!response.description || response.description === 'Default Response')) {
          response.description = STATUS_DESCRIPTIONS[status];
        }
        if (response.description === 'Default Response') response.description = 'Success.';
        const headers: Record<string, unknown> = { ...(response.headers ?? {}) };
        if (authenticated && status !== '401') {
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
