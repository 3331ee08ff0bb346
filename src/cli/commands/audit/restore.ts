import type { Command } from 'commander';
import { formatVerifyReport, restoreAuditLog } from '../../../audit/index.js';
import { createLogger } from '../../../log/index.js';
import { done } from '../../exit.js';
import {
  consoleIo,
  EXIT_OK,
  failed,
  resolveAuditDb,
  subcommand,
  type AuditCliIo,
  type DbOptions,
} from './log.js';

/** `caesar audit restore --from FILE`: checks the copy, refuses while a brain holds the log. */
async function runAuditRestore(
  opts: DbOptions & { from: string },
  io: AuditCliIo = consoleIo,
): Promise<number> {
  try {
    const to = await resolveAuditDb(opts);
    const result = await restoreAuditLog({
      from: opts.from,
      to,
      logger: createLogger({ level: 'warn' }),
    });
    io.out(`restored ${opts.from} -> ${to}`);
    io.out(formatVerifyReport(result.verify));
    if (result.previousMovedTo) io.out(`previous log moved to ${result.previousMovedTo}`);
    return EXIT_OK;
  } catch (err) {
    return failed(err, io);
  }
}

export function addRestore(group: Command): void {
  subcommand(group, 'restore', 'replace the log with a verified backup (the brain must be stopped)')
    .requiredOption('--from <file>', 'backup to restore')
    .action(async (opts: DbOptions & { from: string }) => done(await runAuditRestore(opts)));
}
