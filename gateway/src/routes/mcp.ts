/**
 * POST /mcp: the MCP server of @assay/mcp over Streamable HTTP (CONTRACT §10), for assistants that connect by URL.
 *
 * Authorization is the public API's, by construction: the route authenticates the caller like any API route
 * (`auth: 'token'`: bearer PAT or API key, or the app session cookie, whose POST needs `X-Assay-CSRF: 1`; 401
 * otherwise), and every tool then calls the public API *through this same gateway, in process* (`app.inject`)
 * with the caller's own `Authorization` / `Cookie` / `X-Assay-CSRF` headers. Each tool call is therefore an
 * ordinary API request: same project scoping (404), roles (403 for a viewer's write), per-token rate limits,
 * validation, idempotency and envelopes; nothing in the MCP layer decides access. (In process rather than over
 * loopback: no socket, no second trip through a proxy, and the caller's address stays the caller's.)
 *
 * Rate limits: the /mcp request counts in the per-IP bucket (before authentication, like every /api request) and
 * not in the token's buckets (`rateLimit: 'ip'`); the API calls of its tools count in the token's buckets and not
 * again per IP (they carry this process's random `x-assay-mcp-call` secret). A tool call thus costs what the same
 * API call costs. Body limit: the public API's (PUBLIC_BODY_LIMIT_BYTES, 1 MiB). Stateless transport: GET and
 * DELETE /mcp answer 405 (no server-initiated stream, no session to end).
 *
 * @assay/mcp is handed in (AppDeps.mcp) rather than imported: it is built after the gateway, since its API
 * client is generated from this gateway's OpenAPI document; server.ts loads it when the gateway starts.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '@assay/errors';
import { REQUEST_ID_HEADER } from '@assay/logger';
import { CSRF_HEADER } from '../plugins/app/auth';

export const MCP_PATH = '/mcp';
/**
 * JSON-RPC messages in one POST. The current protocol sends one message per request (batches were dropped in
 * 2025-06-18); a long batch would make one request (one per-IP count) into many API calls.
 */
export const MCP_MAX_BATCH = 10;

/** What the gateway uses of @assay/mcp (its `handleMcpHttpRequest`). */
export interface McpHttpModule {
  handleMcpHttpRequest(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    options: { fetch: (request: Request, init?: RequestInit) => Promise<Response>; baseUrl?: string },
  ): Promise<void>;
}

/** Marks the API calls the MCP tools make in process (see the header comment); the value is this process's secret. */
export const MCP_CALL_HEADER = 'x-assay-mcp-call';
const SECRET = randomBytes(32).toString('hex');

/** Whether a request is an API call made in process by an MCP tool (whose /mcp request was already counted per IP). */
export function isMcpToolCall(request: FastifyRequest): boolean {
  const value = request.headers[MCP_CALL_HEADER];
  if (typeof value !== 'string' || value.length !== SECRET.length) return false;
  return timingSafeEqual(Buffer.from(value), Buffer.from(SECRET));
}

/** The caller's credentials, exactly as they came: the API authenticates the tool calls the way it did /mcp. */
const FORWARDED = ['authorization', 'cookie', CSRF_HEADER] as const;
/** What the client itself sets on a call. */
const FROM_CLIENT = new Set(['content-type', 'accept', 'idempotency-key']);

function inProcessFetch(root: FastifyInstance, outer: FastifyRequest) {
  return async (input: Request): Promise<Response> => {
    const url = new URL(input.url);
    const headers: Record<string, string> = { [MCP_CALL_HEADER]: SECRET, [REQUEST_ID_HEADER]: String(outer.id) };
    for (const name of FORWARDED) {
      const value = outer.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    input.headers.forEach((value, name) => {
      if (FROM_CLIENT.has(name)) headers[name] = value;
    });
    const payload = input.body ? Buffer.from(await input.arrayBuffer()) : undefined;
    const res = await root.inject({
      method: input.method as 'GET',
      url: url.pathname + url.search,
      headers,
      payload,
      remoteAddress: outer.ip,
    });
    const out = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(name, String(v));
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || input.method === 'HEAD';
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers: out });
  };
}

export async function mcpRoutes(app: FastifyInstance, opts: { root: FastifyInstance; mcp?: () => Promise<McpHttpModule> }) {
  let loading: Promise<McpHttpModule> | undefined;
  const load = async () => {
    if (!opts.mcp) throw new AppError('SERVICE_UNAVAILABLE', 'The MCP server is not available on this gateway');
    try {
      return await (loading ??= opts.mcp());
    } catch (err) {
      loading = undefined;
      throw new AppError('SERVICE_UNAVAILABLE', 'The MCP server is not available on this gateway', { cause: err });
    }
  };
  app.post(MCP_PATH, { schema: { hide: true }, config: { auth: 'token', rateLimit: 'ip' } }, async (request, reply) => {
    const mcp = await load();
    if (Array.isArray(request.body) && request.body.length > MCP_MAX_BATCH)
      throw new AppError('VALIDATION_ERROR', `At most ${MCP_MAX_BATCH} JSON-RPC messages per request`, {
        details: [{ path: 'body', message: `must hold at most ${MCP_MAX_BATCH} messages` }],
      });
    // The transport writes the answer itself (JSON, or its own JSON-RPC errors: 406 without the right Accept).
    reply.hijack();
    const res = reply.raw;
    res.setHeader(REQUEST_ID_HEADER, String(request.id));
    res.setHeader('cache-control', 'no-store');
    res.setHeader('x-content-type-options', 'nosniff');
    try {
      await mcp.handleMcpHttpRequest(request.raw, res, request.body, { fetch: inProcessFetch(opts.root, request) });
    } catch (err) {
      request.log.error({ err }, 'mcp request failed');
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: false, error: { code: 'INTERNAL_ERROR', message: 'The MCP request failed' } }));
      } else res.end();
    }
  });
}
