import type { Command } from 'commander';
import { formatVerifyReport } from '../../../audit/index.js';
import { done } from '../../exit.js';
import {
  consoleIo,
  EXIT_FAILED,
  EXIT_OK,
  subcommand,
  withReader,
  type AuditCliIo,
  type DbOptions,
} from './log.js';

/** `caesar audit backup --to FILE`: online copy, then verifies the copy. */
function runAuditBackup(
  opts: DbOptions & { to: string },
  io: AuditCliIo = consoleIo,
): Promise<number> {
  return withReader(opts, io, async (reader) => {
    const result = await reader.backup(opts.to);
    io.out(`backup written: ${result.path} (${result.bytes} bytes)`);
    io.out(formatVerifyReport(result.verify));
    return result.verify.ok ? EXIT_OK : EXIT_FAILED;
  });
}

export function addBackup(group: Command): void {
  subcommand(
    group,
    'backup',
    'online backup to a new file (SQLite backup API), then verify the copy',
  )
    .requiredOption('--to <file>', 'destination; must not exist')
    .action(async (opts: DbOptions & { to: string }) => done(await runAuditBackup(opts)));
}
