/**
 * The MCP server of Assay: an McpServer (the official SDK) holding the tools of tools.ts over one @assay/client.
 * The same server is served over stdio (bin.ts, `npx @assay/mcp`) and over Streamable HTTP (http.ts, the
 * gateway's /mcp), so the tools are written once.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AssayClient } from '@assay/client';
import { DEFAULT_MAX_RESULT_CHARS, type ToolContext } from './kit.ts';
import { registerTools } from './tools.ts';

/** The package version (kept equal to package.json by the pack test). */
export const VERSION = '0.1.0';
export const SERVER_NAME = 'assay';

export const INSTRUCTIONS = `Assay is a test-analytics service: automated test runs (Playwright, JUnit) with their results, flaky and failing tests, analytics, action rules (skip, quarantine, tag), and manual testing (suites, cases, releases, exploratory sessions, manual runs with verdicts).
Every tool works in one project: pass projectId, or leave it out when the server has a default project or the token covers exactly one (list_projects shows them).
To debug a failing run: list_runs (status=failed) -> get_run_failures (errors grouped, failed result ids) -> get_debug_bundle (resultId) -> get_test_history (resultId) to see whether it is flaky or newly broken.
Lists are paged: read pagination.hasNext and the hint, and ask the next page (page+1, or offset for get_test_history). A result too large for one answer is cut and says so: ask a smaller limit.
Errors come back as {error: {code, status, message}} with the API's code: NOT_FOUND (unknown id, or a project the token does not cover), FORBIDDEN (the role may not write: viewers and project API keys only read), VALIDATION_ERROR (details name the field), RATE_LIMIT_EXCEEDED (wait and retry).`;

export interface AssayMcpServerOptions {
  /** The API client the tools call, authenticated as the caller. */
  client: AssayClient;
  /** The project the tools use when their projectId argument is left out. */
  defaultProjectId?: string;
  /** Upper bound of a tool result's text, in characters (default 100000). */
  maxResultChars?: number;
}

export function createAssayMcpServer(options: AssayMcpServerOptions): McpServer {
  const server = new McpServer({ name: SERVER_NAME, title: 'Assay', version: VERSION }, { instructions: INSTRUCTIONS });
  const ctx: ToolContext = {
    client: options.client,
    defaultProjectId: options.defaultProjectId || undefined,
    maxResultChars: options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
  };
  registerTools(server, ctx);
  return server;
}
