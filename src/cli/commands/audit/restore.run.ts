import { formatVerifyReport, restoreAuditLog } from '../../../audit/index.js';
import { createLogger } from '../../../log/index.js';
import { consoleIo, EXIT_OK, failed, resolveAuditDb, type AuditCliIo } from './log.js';
import type { DbOptions } from './flags.js';

/** `caesar audit restore --from FILE`: checks the copy, refuses while a brain holds the log. */
export async function runAuditRestore(
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
