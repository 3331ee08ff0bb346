import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { done } from '../../exit.js';
import { toFilter, withFilters, type FilterOptions } from './filters.js';
import {
  consoleIo,
  EXIT_OK,
  positiveInt,
  printRecords,
  subcommand,
  withReader,
  type AuditCliIo,
} from './log.js';

interface TailOptions extends FilterOptions {
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

export function addTail(group: Command): void {
  withFilters(subcommand(group, 'tail', 'print the newest rows; -f keeps printing new ones'))
    .option('-n, --lines <n>', 'rows to print first', positiveInt, 20)
    .option('-f, --follow', 'keep printing rows as they are appended (Ctrl-C ends)')
    .option('--json', 'one JSON object per line')
    .action(async (opts: TailOptions) => {
      const ac = new AbortController();
      const stop = () => ac.abort();
      process.once('SIGINT', stop).once('SIGTERM', stop);
      try {
        done(await runAuditTail(opts, { ...consoleIo, signal: ac.signal }));
      } finally {
        process.off('SIGINT', stop).off('SIGTERM', stop);
      }
    });
}
