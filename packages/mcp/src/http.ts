/**
 * The Streamable HTTP side, for a host that already authenticated the request (the Assay gateway's /mcp): one
 * POST = one JSON-RPC message or batch, answered as JSON, in the transport's stateless mode (no session id, no
 * server-initiated stream: the tools need neither). A fresh server and transport per request, so nothing of one
 * caller is ever visible to another. The tools call the API through `fetch`, which the host gives with the
 * caller's credentials.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createAssayClient, type FetchLike } from '@assay/client';
import { createAssayMcpServer } from './server.ts';

export interface McpHttpOptions {
  /** How the tools reach the API: a fetch that carries the caller's credentials. */
  fetch: FetchLike;
  /** Base of the API URLs given to `fetch` (default http://assay.internal). */
  baseUrl?: string;
  /** Retries of 429/5xx per API call (default 0: an HTTP caller is waiting; the tool error says when to retry). */
  maxRetries?: number;
  maxResultChars?: number;
}

export async function handleMcpHttpRequest(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  options: McpHttpOptions,
): Promise<void> {
  const client = createAssayClient({
    baseUrl: options.baseUrl ?? 'http://assay.internal',
    fetch: options.fetch,
    maxRetries: options.maxRetries ?? 0,
  });
  const server = createAssayMcpServer({ client, maxResultChars: options.maxResultChars });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
