import { formatVerifyReport } from '../../../audit/index.js';
import { consoleIo, EXIT_FAILED, EXIT_OK, withReader, type AuditCliIo } from './log.js';
import type { DbOptions } from './flags.js';

/** `caesar audit backup --to FILE`: online copy, then verifies the copy. */
export function runAuditBackup(
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
