import type { Command } from 'commander';
import { done, usageExit } from '../program/exit.js';
import { addApiFlags } from '../program/flags.js';
import type { McpServeFlags } from './mcp.run.js';

/** Adds `caesar mcp serve --stdio`; the bridge (`mcp.run.ts`) loads when it runs. */
export function register(program: Command): void {
  const mcp = program
    .command('mcp')
    .description("the brain's tools to MCP clients (docs/api.md, POST /mcp)");
  addApiFlags(
    mcp
      .command('serve')
      .description(
        'speak MCP on stdin/stdout for a client that launches a process, forwarding to the brain: every call judged and audited there under this token',
      )
      .requiredOption('--stdio', 'MCP over stdin/stdout (the brain itself serves HTTP at /mcp)')
      .exitOverride(usageExit),
  ).action(async (flags: McpServeFlags) => {
    const { runMcpServe } = await import('./mcp.run.js');
    done(await runMcpServe(flags));
  });
}
