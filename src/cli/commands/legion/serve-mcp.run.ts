import { McpServer, mcpToolOf, type McpTarget } from '../../../legion/mcp/index.js';
import { TOOL_NAME_PATTERN } from '../../../protocol/index.js';
import { endProcess, EXIT_USAGE } from '../../program/exit.js';
import { reportFailure } from '../../program/fatal.js';
import { terminal } from '../../program/terminal.js';
import { serveDefined, workerContext, type ServeFlags } from './serve-tool.run.js';

/** `caesar legion serve-mcp`'s flags. */
export interface ServeMcpFlags extends ServeFlags {
  url?: string;
  tools?: string[];
  env?: string[];
  cwd?: string;
  /** ms */
  startTimeout?: number;
  /** ms */
  timeout?: number;
  /** false with --no-reads-private. */
  readsPrivate: boolean;
}

/**
 * Starts (or connects to) the MCP server, makes its tools the actions of the tool `name`, and
 * serves it like any other tool until stopped (ADR 0095). The server is stopped with the
 * worker; the process ends when the command does (the SDK's child and sockets go with it).
 */
export async function serveMcp(
  name: string,
  command: string[],
  flags: ServeMcpFlags,
): Promise<number> {
  if (!TOOL_NAME_PATTERN.test(name)) {
    terminal.err(
      `caesar legion serve-mcp: <name> ${JSON.stringify(name)} is not a tool name: lower-case ` +
        'letters, digits and _, a letter first, at most 64 (e.g. files)',
    );
    return EXIT_USAGE;
  }
  try {
    return await endProcess(await serveServer(name, command, flags));
  } catch (err) {
    await reportFailure(err);
    return endProcess(1);
  }
}

async function serveServer(name: string, command: string[], flags: ServeMcpFlags): Promise<number> {
  const context = await workerContext(flags);
  const { compileJsonSchema } = await import('../../../json-schema/index.js');
  const server = await McpServer.start({
    tool: name,
    target: targetOf(command, flags),
    logger: context.logger.child({ tool: name, mcpServer: true }),
    ...(flags.startTimeout === undefined ? {} : { startTimeoutMs: flags.startTimeout }),
  });
  try {
    const defined = mcpToolOf(server, {
      name,
      compile: compileJsonSchema,
      readsPrivate: flags.readsPrivate,
      ...(flags.tools === undefined ? {} : { tools: flags.tools }),
      ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
    });
    for (const skipped of defined.skipped) context.logger.warn(`not served: ${skipped}`);
    if (flags.catalog === true) {
      const { addMcpEntry } = await import('../catalog/catalog.run.js');
      await addMcpEntry(defined.tool, command, flags);
    }
    if (flags.check === true) {
      const actions = defined.tool.actions.map((a) => ({
        name: a.spec.name,
        annotations: a.spec.annotations,
        input_schema: a.spec.input_schema,
      }));
      terminal.out(JSON.stringify({ tool: name, server: server.info, actions }));
      return 0;
    }
    return await serveDefined([defined.tool], flags, { context });
  } finally {
    await server.close();
  }
}

/** The server's place: the command after `--` (with its scrubbed environment), or `--url`. */
function targetOf(command: string[], flags: ServeMcpFlags): McpTarget {
  if (flags.url !== undefined) return { kind: 'http', url: flags.url };
  const env: Record<string, string> = {};
  for (const given of flags.env ?? []) {
    const at = given.indexOf('=');
    if (at > 0) env[given.slice(0, at)] = given.slice(at + 1);
    else if (process.env[given] !== undefined) env[given] = process.env[given];
  }
  const [file, ...args] = command as [string, ...string[]];
  return { kind: 'stdio', command: file, args, env, ...(flags.cwd ? { cwd: flags.cwd } : {}) };
}
