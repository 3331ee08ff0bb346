import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { asksForms } from '../../brain/http/mcp-elicit.js';
import { resolveApiTarget } from '../brain-client/target.js';
import { EXIT_FAILED, EXIT_OK } from '../brain-client/command.js';
import type { ApiFlags } from '../program/flags.js';
import { terminal } from '../program/terminal.js';

/**
 * How long a forwarded `tools/call` may take. The brain bounds each call itself (the call's
 * deadline, or a held call's confirmation time while its question is open), so this only
 * keeps a brain that never answers from holding the client for ever; the SDK's 60 s default
 * would cut off a person still deciding a held call.
 */
const CALL_TIMEOUT_MS = 30 * 60_000;

/** `caesar mcp serve`'s flags. */
export interface McpServeFlags extends ApiFlags {
  stdio: boolean;
}

/**
 * `caesar mcp serve --stdio` (ADR 0094): an MCP server on stdin/stdout for a client that
 * launches a process, forwarding `tools/list` and `tools/call` to the brain's `POST /mcp`
 * under the token the flags (or the running stack's runtime.json) name. The brain judges,
 * audits and answers each call; this process holds no policy and no tool. stdout carries the
 * protocol alone; what goes wrong is said on stderr. Ends when the client closes stdin.
 */
export async function runMcpServe(flags: McpServeFlags): Promise<number> {
  let brain: Client;
  try {
    const target = await resolveApiTarget(flags);
    // elicitation: the brain may put a held call to this client's user, which is passed on
    // to the client that launched this process if it takes questions (below)
    brain = new Client(
      { name: 'caesar-mcp-stdio', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', target.url), {
      requestInit: { headers: { authorization: `Bearer ${target.token}` } },
    });
    await brain.connect(transport);
  } catch (err) {
    terminal.err(`caesar mcp serve: cannot reach the brain's /mcp: ${(err as Error).message}`);
    return EXIT_FAILED;
  }
  const server = new Server(
    { name: 'caesar', version: '1.0.0' },
    {
      capabilities: { tools: { listChanged: true } },
      ...(brain.getInstructions() === undefined ? {} : { instructions: brain.getInstructions() }),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => brain.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    brain.callTool(request.params, undefined, { timeout: CALL_TIMEOUT_MS }),
  );
  // a question about a held call goes to this client's user; a client that takes none
  // leaves the call waiting, as the brain's answer then says
  brain.setRequestHandler(ElicitRequestSchema, (request, extra) =>
    asksForms(server.getClientCapabilities())
      ? server.request(request, ElicitResultSchema, { signal: extra.signal })
      : { action: 'cancel' as const },
  );
  // the brain's session says when the tools change; the client hears it from here
  brain.setNotificationHandler(ToolListChangedNotificationSchema, () =>
    server.sendToolListChanged(),
  );
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await brain.close();
  return EXIT_OK;
}
