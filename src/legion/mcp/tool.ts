import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { actionName, type ExecutionLocality } from '../../protocol/index.js';
import type { AnyAction, ActionToolDefinition } from '../actions.js';
import { announcedType, type CompileJsonSchema } from '../announced-type.js';
import { ToolDefinitionError } from '../define.js';
import { defineTool } from '../tool.js';
import { McpServerError, McpToolError } from './errors.js';
import { mapToolNames, pickTools, quoted, type MappedName } from './names.js';
import { errorTextOfMcp, resultOfMcp, resultSchema } from './result.js';
import type { McpServer } from './server.js';
import {
  annotationsOfMcp,
  boundedText,
  descriptionOfMcp,
  schemaOfMcp,
  titleOfMcp,
} from './spec.js';

export interface McpToolOptions {
  /** The CAESAR tool's name: its actions are `<name>.<action>`. */
  readonly name: string;
  /** `--tools`: the server's tools to serve, by their MCP or action name. @default all */
  readonly tools?: readonly string[];
  /**
   * Whether the tools' answers hold the operator's private data. MCP declares nothing of the
   * kind, so it is taken that they do, unless the operator says otherwise (ADR 0095).
   * @default true
   */
  readonly readsPrivate?: boolean;
  /** Upper bound on one call (the brain's deadline may cut it shorter). @default 60000 */
  readonly timeoutMs?: number;
  /** The JSON Schema engine (`compileJsonSchema`), loaded by the caller. */
  readonly compile: CompileJsonSchema;
}

/** What serving the server's tools makes: the tool, and the server's tools left out and why. */
export interface McpToolDefinition {
  readonly tool: ActionToolDefinition;
  /** Each as `"name": why`, for a warn line. */
  readonly skipped: readonly string[];
}

/**
 * One CAESAR tool whose actions are an MCP server's tools (ADR 0095), declared with
 * `defineTool({actions})` so grants, reply signing, limits, discovery, stats and preflight are
 * the SDK's own. Every action's output is `untrusted` (outside text, whatever the server says).
 * @throws {McpServerError} naming every tool that cannot become an action, and the flag to use
 */
export function mcpToolOf(server: McpServer, o: McpToolOptions): McpToolDefinition {
  const refuse = (reason: string) => new McpServerError({ server: server.describe(), reason });
  // a tool the server runs only as an MCP task cannot answer a plain tools/call
  const taskOnly = server.tools.filter((t) => t.execution?.taskSupport === 'required');
  const callable = server.tools.filter((t) => !taskOnly.includes(t));
  const picked = pickTools(
    callable.map((t) => t.name),
    o.tools,
  );
  const asked = new Set(o.tools ?? []);
  const askedTaskOnly = taskOnly.filter((t) => asked.has(t.name));
  if (picked.unknown.length > 0 || askedTaskOnly.length > 0) {
    const names = callable.map((t) => quoted(t.name)).join(', ');
    const unknown = picked.unknown.filter((n) => !askedTaskOnly.some((t) => t.name === n));
    const why = [
      unknown.length > 0
        ? `--tools names ${unknown.map(quoted).join(', ')}, which it does not list`
        : '',
      askedTaskOnly.length > 0
        ? `${askedTaskOnly.map((t) => quoted(t.name)).join(', ')} run only as MCP tasks, which serve-mcp does not call`
        : '',
    ].filter((w) => w !== '');
    throw refuse(`${why.join('; ')}; its tools: ${names}`);
  }
  const mapping = mapToolNames(o.name, picked.kept);
  if (!mapping.ok) throw refuse(mapping.problems.join('; '));
  const byName = new Map(callable.map((t) => [t.name, t]));
  const problems: string[] = [];
  const actions: Record<string, AnyAction> = {};
  for (const mapped of mapping.names) {
    const made = actionOf(server, byName.get(mapped.mcp)!, mapped, o, problems);
    if (made !== undefined) actions[mapped.action] = made;
  }
  if (problems.length > 0) throw refuse(problems.join('; '));
  server.watch(
    mapping.names.map((m) => byName.get(m.mcp)!),
    o.tools !== undefined,
  );
  try {
    const tool = defineTool({
      name: o.name,
      version: semverOf(server.info.version),
      title: boundedText(`MCP server ${server.info.name}`, 100),
      description: `The tools of the MCP server ${boundedText(server.info.name, 100)}, served by caesar legion serve-mcp.`,
      tags: ['tool', 'mcp'],
      backend: 'mcp',
      executionLocality: localityOf(server),
      resourceRequirements: { cpu: 'low', memory_mb: 256, network: true },
      licensing: 'NOASSERTION',
      licensingNotes: "the MCP server's own licence; CAESAR does not know it",
      extra: {
        mcp_server: boundedText(server.info.name, 200),
        mcp_version: boundedText(server.info.version, 200),
      },
      preflight: () => server.check(),
      stop: () => server.close(),
      actions,
    });
    return { tool, skipped: taskOnly.map((t) => `${quoted(t.name)}: runs only as an MCP task`) };
  } catch (err) {
    if (err instanceof ToolDefinitionError) throw refuse(err.message);
    throw err;
  }
}

/** One MCP tool as an action; a schema that cannot be used is a problem naming the tool. */
function actionOf(
  server: McpServer,
  t: Tool,
  mapped: MappedName,
  o: McpToolOptions,
  problems: string[],
): AnyAction | undefined {
  const callable = actionName(o.name, mapped.action);
  const input = typeOf(
    o.compile,
    t.inputSchema,
    `tool ${quoted(t.name)}: its input schema`,
    problems,
  );
  const declared = t.outputSchema === undefined ? undefined : schemaOfMcp(t.outputSchema);
  if (declared !== undefined && !declared.ok) {
    problems.push(`tool ${quoted(t.name)}: its output schema: ${declared.reason}`);
    return undefined;
  }
  const output = typeOf(
    o.compile,
    resultSchema(declared?.schema),
    `tool ${quoted(t.name)}: its output schema`,
    problems,
  );
  if (input === undefined || output === undefined) return undefined;
  const title = titleOfMcp(t);
  return {
    description: descriptionOfMcp(t, server.info.name.slice(0, 100)),
    ...(title === undefined ? {} : { title }),
    input,
    output,
    annotations: annotationsOfMcp(t),
    outputTrust: 'untrusted',
    readsPrivate: o.readsPrivate ?? true,
    timeoutMs: o.timeoutMs ?? 60_000,
    handler: async (args: Record<string, unknown>, ctx) => {
      const r = await server.call(t.name, args, {
        signal: ctx.signal,
        timeoutMs: ctx.deadline - Date.now(),
      });
      if (r.isError === true) {
        throw new McpToolError({ tool: callable, reason: errorTextOfMcp(r) });
      }
      return resultOfMcp(r);
    },
  };
}

function typeOf(
  compile: CompileJsonSchema,
  schema: Record<string, unknown>,
  what: string,
  problems: string[],
) {
  const bounded = schemaOfMcp(schema);
  if (!bounded.ok) {
    problems.push(`${what}: ${bounded.reason}`);
    return undefined;
  }
  try {
    return announcedType(compile, bounded.schema);
  } catch (err) {
    problems.push(`${what} is unusable: ${(err as Error).message.slice(0, 200)}`);
    return undefined;
  }
}

/** The server's version when it is semver (the spec's form), else 0.0.0 (`extra` keeps it). */
function semverOf(version: string): string {
  return /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(version) && version.length <= 64
    ? version
    : '0.0.0';
}

/** A command started here runs here; a URL is a service elsewhere. */
function localityOf(server: McpServer): ExecutionLocality {
  return server.target.kind === 'stdio' ? 'local' : 'remote_api';
}
