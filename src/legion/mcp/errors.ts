import { errorClass } from '../../errors/index.js';

/**
 * The errors of an MCP server served as a tool (ADR 0095), made from the catalogue (ADR 0087).
 * Two travel on the wire as a call's failure; the third stops `serve-mcp` before it serves.
 */

/** The server ran the tool and answered `isError: true`, or refused the call. */
export const McpToolError = errorClass('mcp_tool_error');
export type McpToolError = InstanceType<typeof McpToolError>;

/** The server's process exited (or its connection closed) before or during the call. */
export const McpServerUnavailableError = errorClass('mcp_server_unavailable');
export type McpServerUnavailableError = InstanceType<typeof McpServerUnavailableError>;

/** The server cannot be served: it did not start, or its tools cannot become actions. */
export const McpServerError = errorClass('mcp_server_refused');
export type McpServerError = InstanceType<typeof McpServerError>;
