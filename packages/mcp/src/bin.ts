#!/usr/bin/env node
/**
 * `npx @assay/mcp`: the Assay MCP server over stdio, for an assistant that starts it as a child process.
 *   ASSAY_URL          the Assay server, e.g. https://assay.example.com (required)
 *   ASSAY_TOKEN        a personal access token or project API key, svc_pat_… (required)
 *   ASSAY_PROJECT_ID   the project the tools use when they are not given one (optional)
 * stdout carries the protocol only; messages go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createAssayClient } from '@assay/client';
import { createAssayMcpServer, VERSION } from './server.ts';

const USAGE = `assay-mcp ${VERSION}: the Assay MCP server over stdio.

Environment:
  ASSAY_URL         the Assay server, e.g. https://assay.example.com (required)
  ASSAY_TOKEN       a personal access token or project API key, svc_pat_... (required)
  ASSAY_PROJECT_ID  the default project of the tools (optional)

Assistant configuration (e.g. .mcp.json / claude_desktop_config.json):
  {"mcpServers": {"assay": {"command": "npx", "args": ["-y", "@assay/mcp"],
    "env": {"ASSAY_URL": "https://assay.example.com", "ASSAY_TOKEN": "svc_pat_..."}}}}
`;

async function main(): Promise<void> {
  const arg = process.argv[2];
  if (arg === '--help' || arg === '-h') {
    process.stdout.write(USAGE);
    return;
  }
  if (arg === '--version' || arg === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  const url = process.env.ASSAY_URL?.trim();
  const token = process.env.ASSAY_TOKEN?.trim();
  if (!url || !token) {
    process.stderr.write(`assay-mcp: ASSAY_URL and ASSAY_TOKEN must be set\n\n${USAGE}`);
    process.exit(2);
  }
  try {
    new URL(url);
  } catch {
    process.stderr.write(`assay-mcp: ASSAY_URL is not a URL: ${url}\n`);
    process.exit(2);
  }
  const client = createAssayClient({ baseUrl: url.replace(/\/+$/, ''), token });
  const server = createAssayMcpServer({ client, defaultProjectId: process.env.ASSAY_PROJECT_ID?.trim() });
  await server.connect(new StdioServerTransport());
}

main().catch((err: unknown) => {
  process.stderr.write(`assay-mcp: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
