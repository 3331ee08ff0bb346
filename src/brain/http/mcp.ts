import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  isInitializeRequest,
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { askFor, asksForms } from './mcp-elicit.js';
import {
  principalOf,
  type BrainService,
  type Caller,
  type OfferedToolView,
  type ToolCallReport,
} from '../api/index.js';
import { inAudience } from '../../policy/index.js';
import { tokenHasScope } from './auth.js';
import { callerOf } from './routes.js';

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

/** Sessions held at once; a new one past this ends the one idle longest. */
const MAX_SESSIONS = 64;
/** A session no request has used for this long is ended. */
const SESSION_IDLE_MS = 30 * 60_000;

/** What a server of one request or one session may do beyond listing and calling. */
interface ServerRole {
  /** Send `notifications/tools/list_changed` (a session, which has a stream for it). */
  readonly listChanged: boolean;
  /**
   * Ask the client's user to decide a held call (elicitation): a session whose token may
   * decide confirmations anyway (scope `confirm`), so asking gives the client nothing its
   * token could not do over `POST /v1/confirmations/{id}`.
   */
  readonly mayAsk: boolean;
}

interface Session {
  readonly actor: string;
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

export function registerMcp(app: FastifyInstance, service: BrainService): void {
  const sessions = new McpSessions(service);
  app.addHook('onClose', () => sessions.closeAll());
  const config = { config: { scope: 'invoke' as const } };
  app.post('/mcp', config, (req, reply) => sessions.post(req, reply));
  app.get('/mcp', config, (req, reply) => sessions.stream(req, reply));
  app.delete('/mcp', config, (req, reply) => sessions.stream(req, reply));
}

/**
 * The MCP sessions of this brain (ADR 0094): a client that sends `initialize` gets one
 * (`Mcp-Session-Id`), with a server-sent stream on `GET /mcp` where `tools/list_changed`
 * arrives; any other request without a session is answered statelessly. A session belongs to
 * the token that opened it: another token's request naming it is answered as if it did not
 * exist. Bounded in number and in idle time.
 */
class McpSessions {
  readonly #service: BrainService;
  readonly #byId = new Map<string, Session>();
  readonly #sweep: NodeJS.Timeout;

  constructor(service: BrainService) {
    this.#service = service;
    this.#sweep = setInterval(() => void this.#endIdle(Date.now() - SESSION_IDLE_MS), 60_000);
    this.#sweep.unref();
  }

  async post(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const caller = callerOf(req);
    const id = sessionIdOf(req);
    if (id !== undefined) return this.#inSession(id, caller.actor, req, reply);
    if (isInitializeRequest(req.body)) return this.#open(caller, req, reply);
    return serveStateless(req, reply, this.#service, caller);
  }

  /** `GET` (the session's stream) and `DELETE` (its end): a session's only. */
  async stream(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const id = sessionIdOf(req);
    if (id === undefined) {
      return void reply
        .code(405)
        .header('allow', 'POST')
        .send({
          error: {
            code: 'method_not_allowed',
            message: 'GET and DELETE /mcp need an Mcp-Session-Id',
          },
        });
    }
    return this.#inSession(id, callerOf(req).actor, req, reply);
  }

  closeAll(): Promise<void> {
    clearInterval(this.#sweep);
    return this.#endIdle(Infinity);
  }

  async #inSession(id: string, actor: string, req: FastifyRequest, reply: FastifyReply) {
    const session = this.#byId.get(id);
    if (session === undefined || session.actor !== actor) {
      return void reply.code(404).send({
        jsonrpc: '2.0',
        error: { code: -32001, message: 'Session not found: initialize a new one' },
        id: null,
      });
    }
    session.lastSeen = Date.now();
    await handOver(req, reply, session.transport);
  }

  async #open(caller: Caller, req: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (this.#byId.size >= MAX_SESSIONS) {
      const oldest = [...this.#byId.values()].sort((a, b) => a.lastSeen - b.lastSeen)[0];
      await oldest?.transport.close();
    }
    const mayAsk = tokenHasScope(req, 'confirm');
    const server = mcpServer(this.#service, caller, { listChanged: true, mayAsk });
    let unsubscribe = () => {};
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // a call's answer comes as a server-sent stream, so that a question about it
      // (elicitation of a held call) can go to the client before the answer
      enableJsonResponse: false,
      onsessioninitialized: (id) => {
        this.#byId.set(id, { actor: caller.actor, server, transport, lastSeen: Date.now() });
        // what this session's principal is offered (ADR 0096), compared for it alone
        const changed = () => void server.sendToolListChanged();
        unsubscribe = this.#service.onToolsChanged(changed, caller);
      },
    });
    transport.onclose = () => {
      unsubscribe();
      if (transport.sessionId !== undefined) this.#byId.delete(transport.sessionId);
      void server.close();
    };
    await server.connect(transport);
    await handOver(req, reply, transport);
  }

  async #endIdle(before: number): Promise<void> {
    const idle = [...this.#byId.values()].filter((s) => s.lastSeen < before);
    await Promise.allSettled(idle.map((s) => s.transport.close()));
  }
}

function sessionIdOf(req: FastifyRequest): string | undefined {
  const id = req.headers['mcp-session-id'];
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** A request outside any session: a server and a transport for it alone. */
async function serveStateless(
  req: FastifyRequest,
  reply: FastifyReply,
  service: BrainService,
  caller: Caller,
): Promise<void> {
  const server = mcpServer(service, caller, { listChanged: false, mayAsk: false });
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
  await handOver(req, reply, transport, true);
}

/**
 * The request to the SDK's transport, which answers on the raw response. A failure there
 * (fastify no longer answers a hijacked reply) ends the response with a JSON-RPC internal
 * error rather than leave the client waiting; the reason goes to the log, not the client.
 */
async function handOver(
  req: FastifyRequest,
  reply: FastifyReply,
  transport: StreamableHTTPServerTransport,
  hijacked = false,
): Promise<void> {
  if (!hijacked) reply.hijack();
  try {
    await transport.handleRequest(req.raw, reply.raw, req.body);
  } catch (err) {
    req.log.error({ err }, 'MCP request failed');
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { 'content-type': 'application/json' });
      reply.raw.end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32603, message: 'Internal error' },
          id: null,
        }),
      );
    } else if (!reply.raw.writableEnded) {
      reply.raw.end();
    }
  }
}

function mcpServer(service: BrainService, caller: Caller, role: ServerRole): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: role.listChanged } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    // what the caller's principal is offered: discovered, allowed for it, ready, in the tags
    tools: (await service.offeredTools(caller)).map(mcpTool),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const report = await service.invoke(
      request.params.name,
      request.params.arguments ?? {},
      caller,
    );
    if (report.outcome !== 'confirmation_required' || !role.mayAsk) return callResult(report);
    if (!asksForms(server.getClientCapabilities())) return callResult(report);
    return callResult(await askPerson(server, service, caller, report, extra));
  });
  return server;
}

/**
 * A held call put to the client's user (MCP elicitation, form mode): the account of who asked
 * and why it is held, and one yes/no. Yes approves it through the same path as
 * `POST /v1/confirmations/{id}` (audited as decided by this token), no rejects it; no answer
 * (cancel, the client gone, the confirmation's time up) leaves it waiting, and the result says
 * how else to approve it.
 */
async function askPerson(
  server: Server,
  service: BrainService,
  caller: Caller,
  report: ToolCallReport,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): Promise<ToolCallReport> {
  const ticket = report.confirmation;
  const timeout = ticket === undefined ? 0 : Date.parse(ticket.expires_at) - Date.now();
  if (ticket === undefined || !(timeout > 0)) return report;
  // a rule that names approvers (ADR 0096): a caller outside them is not asked, since its
  // yes would be refused; the call waits for one of them
  if (ticket.approvers !== undefined && !mayApprove(ticket.approvers, caller)) return report;
  let answer;
  try {
    // `request`, not `elicitInput`: that one wants `elicitation.form`, which a client of an
    // earlier revision says as `elicitation: {}`; the answer is checked below either way
    answer = await server.request(
      { method: 'elicitation/create', params: askFor(report) },
      ElicitResultSchema,
      {
        relatedRequestId: extra.requestId,
        signal: extra.signal,
        timeout,
      },
    );
  } catch {
    return report;
  }
  if (answer.action === 'cancel') return report;
  const approve = answer.action === 'accept' && answer.content?.['approve'] === true;
  try {
    return await service.confirm(ticket.id, approve, caller);
  } catch (err) {
    // decided meanwhile by someone else, or expired: the report says it was held; the
    // reason says what became of it
    return { ...report, reason: `${report.reason ?? 'held'}; ${(err as Error).message}` };
  }
}

function mayApprove(approvers: { principals: string[]; groups: string[] }, caller: Caller) {
  const audience = { principals: new Set(approvers.principals), groups: new Set(approvers.groups) };
  return inAudience(audience, principalOf(caller));
}

/**
 * A tool as MCP lists it: the card, the input schema, the output schema when it describes an
 * object (MCP's `outputSchema` must), and the spec's hints.
 */
export function mcpTool(t: OfferedToolView): Tool {
  const a = t.spec.annotations;
  const output = t.spec.output_schema;
  return {
    name: t.name,
    title: t.spec.title,
    description: t.description,
    inputSchema: t.inputSchema as Tool['inputSchema'],
    ...(output['type'] === 'object' ? { outputSchema: output as Tool['outputSchema'] } : {}),
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
 * a call held for a person as an error result too (it produced no output, and a tool that
 * declares an output schema owes structured content on every other result) whose text says
 * it waits, and how to approve it.
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
      return { isError: true, content: text(`${report.tool} was not run yet: ${how}`) };
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
