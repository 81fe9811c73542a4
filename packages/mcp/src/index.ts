/**
 * @assay/mcp: the Model Context Protocol server of Assay. Tools over the Assay API (through @assay/client) for AI
 * assistants, served over stdio (`npx @assay/mcp`) or over Streamable HTTP (`handleMcpHttpRequest`, which the
 * Assay gateway serves at /mcp).
 */
export { createAssayMcpServer, INSTRUCTIONS, SERVER_NAME, VERSION, type AssayMcpServerOptions } from './server.ts';
export { handleMcpHttpRequest, type McpHttpOptions } from './http.ts';
export { TOOLS } from './tools.ts';
export { bound, DEFAULT_MAX_RESULT_CHARS } from './kit.ts';
