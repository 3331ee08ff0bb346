import type { Command } from 'commander';
import { formatStats } from '../../../audit/index.js';
import { done } from '../../exit.js';
import {
  consoleIo,
  EXIT_OK,
  subcommand,
  withReader,
  type AuditCliIo,
  type DbOptions,
} from './log.js';

/** `caesar audit stats`: size, span and counts by type, tool and outcome. */
export function runAuditStats(
  opts: DbOptions & { json?: boolean },
  io: AuditCliIo = consoleIo,
): Promise<number> {
  return withReader(opts, io, (reader) => {
    const stats = reader.stats();
    if (opts.json) io.out(JSON.stringify(stats));
    else formatStats(stats).forEach((l) => io.out(l));
    return EXIT_OK;
  });
}

export function addStats(group: Command): void {
  subcommand(group, 'stats', 'size, span and counts by type, tool and outcome')
    .option('--json', 'print JSON')
    .action(async (opts: DbOptions & { json?: boolean }) => done(await runAuditStats(opts)));
}
