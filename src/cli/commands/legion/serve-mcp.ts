import type { Command } from 'commander';
import { addBusFlags, commaList, durationFlag } from '../../program/flags.js';
import { addRestartFlags, restartsOf } from './restart-flags.js';
import { takenToolName } from './own-tool-name.js';
import type { ServeMcpFlags } from './serve-mcp.run.js';

const HELP = `
The MCP server's tools become the actions of one tool <name> (<name>.<action>): policy rules
name them with \`- tool: <name>\` and \`actions: [...]\`, and every call is judged, audited and
granted like any other tool's (docs/legion.md, "MCP servers as tools"; ADR 0095).

Examples:
  caesar legion serve-mcp files -- npx @modelcontextprotocol/server-filesystem /srv/share
  caesar legion serve-mcp demo --tools echo,get-sum -- mcp-server-everything stdio
  caesar legion serve-mcp remote --url https://mcp.example.org/mcp

A stdio server gets HOME, LOGNAME, PATH, SHELL, TERM and USER of this environment and what
--env names, nothing else. Put the server's command after --, so its own flags stay its own.
`;

/** `caesar legion serve-mcp <name> [--url U | -- command...]` (`serve-mcp.run.ts`). */
export function addServeMcp(legion: Command): void {
  addRestartFlags(
    addBusFlags(
      legion
        .command('serve-mcp')
        .description("serve an MCP server's tools as the actions of one governed tool over NATS")
        .argument('<name>', 'the tool name its actions go under (^[a-z][a-z0-9_]{0,63}$)')
        .argument('[command...]', 'the stdio server to start, after --: its command and arguments')
        .option('--url <url>', 'a Streamable HTTP MCP server to connect to, instead of a command')
        .option(
          '--tools <names>',
          "serve only these of the server's tools, comma-separated (their MCP names or action names); at most 16",
          commaList,
        )
        .option(
          '--env <KEY[=VALUE]>',
          'an environment variable for the stdio server: KEY=VALUE, or KEY to pass on this one; repeatable',
          (value: string, previous: string[] = []) => [...previous, value],
        )
        .option('--cwd <dir>', "the stdio server's working directory (default: this one)")
        .option(
          '--start-timeout <duration>',
          'how long the server may take to answer initialize and tools/list (default 10s)',
          durationFlag,
        )
        .option(
          '--timeout <duration>',
          'the longest one call may take (default 60s; the brain may give it less)',
          durationFlag,
        )
        .option(
          '--no-reads-private',
          "declare that the server's answers hold none of the operator's private data (default: they may)",
        )
        .option(
          '--catalog',
          'add the server to the catalog (<data-dir>/catalog.yaml) as an mcp entry before serving',
        )
        .option('--check', 'start the server, print its actions as JSON, and exit without NATS')
        .option('--host <name>', 'host name reported to the brain (default: this host)')
        .option(
          '--trusted-brain <key-or-file>',
          'a brain whose signed grants this worker accepts: its public key, or a file holding it; repeatable (adds to worker.trusted_brains)',
          (value: string, previous: string[] = []) => [...previous, value],
        )
        .addHelpText('after', HELP),
    ),
  ).action(async (name: string, command: string[], flags: ServeMcpFlags, cmd: Command) => {
    const problem = usageProblem(name, command, flags);
    if (problem !== undefined) cmd.error(`error: ${problem}`);
    const restarts = restartsOf(flags);
    if (!restarts.ok) cmd.error(`error: ${restarts.problem}`);
    const { serveMcp } = await import('./serve-mcp.run.js');
    process.exitCode = await serveMcp(name, command, flags);
  });
}

/** What is wrong with the arguments, in words that name the flag and the next step. */
function usageProblem(name: string, command: string[], flags: ServeMcpFlags): string | undefined {
  // the tool-name pattern itself is checked by the runner (protocol/names.ts loads zod)
  const taken = takenToolName(name);
  if (taken !== undefined) return `<name> '${name}' is ${taken.why}; try '${taken.suggestion}'`;
  if (flags.url !== undefined && command.length > 0) {
    return 'give --url or a command after --, not both';
  }
  if (flags.url === undefined && command.length === 0) {
    return 'say where the MCP server is: a command after -- (caesar legion serve-mcp files -- npx @modelcontextprotocol/server-filesystem /srv/share), or --url <streamable-http-url>';
  }
  if (flags.url !== undefined && !/^https?:\/\/\S+$/i.test(flags.url)) {
    return `--url must be an http:// or https:// URL, not ${JSON.stringify(flags.url.slice(0, 200))}`;
  }
  if (flags.url !== undefined && (flags.env !== undefined || flags.cwd !== undefined)) {
    return '--env and --cwd are for a server this command starts, not one at --url';
  }
  for (const env of flags.env ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*(=.*)?$/s.test(env)) {
      return `--env ${JSON.stringify(env.slice(0, 100))}: expected KEY=VALUE or KEY`;
    }
  }
  return undefined;
}
