import { setTimeout as sleep } from 'node:timers/promises';
import { toFilter, type FilterOptions } from './filters.js';
import { consoleIo, EXIT_OK, printRecords, withReader, type AuditCliIo } from './log.js';

/** `caesar audit tail`'s flags. */
export interface TailOptions extends FilterOptions {
  lines?: number;
  follow?: boolean;
  intervalMs?: number;
}

/** `caesar audit tail [-f]`: the last rows, oldest first; with `-f`, new rows as they land. */
function runAuditTail(opts: TailOptions, io: AuditCliIo = consoleIo): Promise<number> {
  return withReader(opts, io, async (reader) => {
    const filter = toFilter(opts);
    const last = reader.query({ ...filter, limit: opts.lines ?? 20 }).reverse();
    printRecords(last, opts.json, io);
    let afterSeq = last.at(-1)?.seq ?? reader.stats().lastSeq ?? 0;
    while (opts.follow && !io.signal?.aborted) {
      try {
        await sleep(opts.intervalMs ?? 500, undefined, { signal: io.signal });
      } catch {
        break; // aborted: Ctrl-C ends a follow cleanly
      }
      const fresh = reader.query({ ...filter, afterSeq, limit: 1000 });
      printRecords(fresh, opts.json, io);
      afterSeq = fresh.at(-1)?.seq ?? afterSeq;
    }
    return EXIT_OK;
  });
}

/** {@link runAuditTail} on the console, until SIGINT or SIGTERM ends a `--follow`. */
export async function tailOnConsole(opts: TailOptions): Promise<number> {
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    return await runAuditTail(opts, { ...consoleIo, signal: ac.signal });
  } finally {
    process.off('SIGINT', stop).off('SIGTERM', stop);
  }
}
