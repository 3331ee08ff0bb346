import type { Command } from 'commander';
import { defaultToolNames } from '../../../workers/index.js';
import { addBrainFileFlags } from '../program/flags.js';
import { terminal } from '../program/terminal.js';
import { terminalLine } from '../../text/terminal-text.js';
import type { UpFlags } from '../stack/index.js';

/** Adds `caesar up`; the stack itself is `src/cli/stack`, loaded when the command runs. */
export function register(program: Command): void {
  addBrainFileFlags(
    program
      .command('up')
      .description(
        "start the embedded stack: nats-server on loopback, the brain, every shipped worker and your own (worker.modules and the catalog's modules)",
      )
      .option('--config <file>', 'caesar.yaml to read')
      .option('--data-dir <dir>', 'where runtime state lives (default ./var)'),
  )
    .option('--nats-port <port>', 'client port for the embedded nats-server (0 = any free port)')
    .option('--api-port <port>', "port of the brain's HTTP API (default 8420; 0 = any free port)")
    .option(
      '--tools <names>',
      `comma-separated tools to run (default: ${defaultToolNames().join(',')})`,
    )
    .option('--log-level <level>', 'log level of the brain and the workers (default warn)')
    .option(
      '--cluster <n>',
      'run n nats-servers (2-7) on loopback, routed to each other, on client ports --nats-port, +1, …',
    )
    .action(async (flags: UpFlags) => {
      // before the stack's modules load; node:v8 loads only for `up`, not for --help
      (await import('../stack/supervisor-v8.js')).leanSupervisorV8();
      const { runUp } = await import('../stack/index.js');
      // each a line: a status line quotes what workers say (preflight), a log line is a
      // child's output; escaped as one line each (ADR 0064)
      process.exitCode = await runUp(flags, {
        say: (line) => terminal.out(terminalLine(line)),
        log: (line) => terminal.err(terminalLine(line)),
      });
    });
}
