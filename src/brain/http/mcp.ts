import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { BrainService, OfferedToolView, ToolCallReport } from '../api/index.js';
import { actorOf } from './auth.js';

/**
 * CAESAR as an MCP server (ADR 0094): `POST /mcp`, the Streamable HTTP transport of the
 * official TypeScript SDK, stateless (a server and a transport per request, JSON answers, no
 * session), behind the same bearer tokens as every route (scope `invoke`). `tools/list` shows
 * what a model would be offered now; `tools/call` is an ordinary call through the gateway
 * (policy, audit, grants, confirmations), by the token's name.
 */

/** The MCP server's name and version, as `initialize` answers them. */
const SERVER_INFO = { name: 'caesar', version: '1.0.0' };

const INSTRUCTIONS =
  "Tools of a CAESAR home assistant. Every call is judged by the operator's policy and " +
  'written to an audit log; a call the policy holds for a person returns a confirmation id ' +
  'and runs only once someone approves it.';

export function registerMcp(app: FastifyInstance, service: BrainService): void {
  app.post('/mcp', { config: { scope: 'invoke' } }, (req, reply) => serveMcp(req, reply, service));
  // stateless: no server-sent stream to open, no session to end (MCP: "405 Method Not Allowed")
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      config: { scope: 'invoke' },
      handler: (_req, reply) =>
        reply
          .code(405)
          .header('allow', 'POST')
          .send({
            error: {
              code: 'method_not_allowed',
              message: 'this MCP server is stateless: POST only',
            },
          }),
    });
  }
}

async function serveMcp(
  req: FastifyRequest,
  reply: FastifyReply,
  service: BrainService,
): Promise<void> {
  const actor = actorOf(req);
  // The auth hook runs first on every non-public route; reaching here without it is a bug.
  if (actor === undefined) throw new Error('POST /mcp ran unauthenticated');
  const server = mcpServer(service, { actor, requestId: req.id });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  reply.hijack();
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req.raw, reply.raw, req.body);
}

function mcpServer(service: BrainService, caller: { actor: string; requestId: string }): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await service.offeredTools()).map(mcpTool),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const report = await service.invoke(
      request.params.name,
      request.params.arguments ?? {},
      caller,
    );
    return callResult(report);
  });
  return server;
}

/** A tool as MCP lists it: the card, the input schema, the spec's hints. */
export function mcpTool(t: OfferedToolView): Tool {
  const a = t.spec.annotations;
  return {
    name: t.name,
    title: t.spec.title,
    description: t.description,
    inputSchema: t.inputSchema as Tool['inputSchema'],
    annotations: {
      title: t.spec.title,
      readOnlyHint: a.readOnly,
      destructiveHint: a.destructive,
      idempotentHint: a.idempotent,
      openWorldHint: a.openWorld,
    },
  };
}

/**
 * A call's report as MCP's result: what ran as text (JSON) and, for an object, structured
 * content; anything refused or failed as an error result in words, the deciding rule named;
 * a call held for a person as a result that says it waits, and how to approve it.
 */
export function callResult(report: ToolCallReport): CallToolResult {
  const text = (t: string) => [{ type: 'text' as const, text: t }];
  switch (report.outcome) {
    case 'ok': {
      const structured =
        typeof report.result === 'object' && report.result !== null && !Array.isArray(report.result)
          ? { structuredContent: report.result as Record<string, unknown> }
          : {};
      return { content: text(JSON.stringify(report.result ?? null)), ...structured };
    }
    case 'confirmation_required': {
      const c = report.confirmation;
      const how =
        c === undefined
          ? 'a person must approve it'
          : `waiting for a person to approve it: \`caesar confirm ${c.id}\` (or POST /v1/confirmations/${c.id} {"approve": true}) before ${c.expires_at}; ${c.summary}`;
      return { content: text(`${report.tool} was not run yet: ${how}`) };
    }
    default: {
      const why = report.reason ?? report.error?.message ?? report.outcome;
      const rule =
        report.rule === undefined
          ? ''
          : ` (rule ${report.rule}${report.rule_at === undefined ? '' : ` at ${report.rule_at}`})`;
      return { isError: true, content: text(`${report.tool} ${report.outcome}: ${why}${rule}`) };
    }
  }
}
