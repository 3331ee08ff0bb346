// MCP servers as governed workers (ADR 0095): `caesar legion serve-mcp` starts or connects to
// an MCP server and serves its tools as the actions of one CAESAR tool. Not part of the SDK's
// index: a shipped worker never loads the MCP client.
export { McpServer } from './server.js';
export type { McpTarget } from './server.js';
export { mcpToolOf } from './tool.js';
