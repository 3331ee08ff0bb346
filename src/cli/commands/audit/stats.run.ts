import { formatStats } from '../../../audit/index.js';
import { consoleIo, EXIT_OK, withReader, type AuditCliIo } from './log.js';
import type { DbOptions } from './flags.js';

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
