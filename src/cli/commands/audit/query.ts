import type { Command } from 'commander';
import type { AuditQuery } from '../../../audit/index.js';
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

interface QueryOptions extends FilterOptions {
  afterSeq?: number;
  limit?: number;
  oldest?: boolean;
}

/** `caesar audit query`: filtered rows, newest first (or oldest first from `--after-seq`). */
export function runAuditQuery(opts: QueryOptions, io: AuditCliIo = consoleIo): Promise<number> {
  return withReader(opts, io, (reader) => {
    const query: AuditQuery = {
      ...toFilter(opts),
      limit: opts.limit ?? 100,
      ...(opts.afterSeq !== undefined ? { afterSeq: opts.afterSeq } : {}),
      ...(opts.oldest ? { order: 'oldest' as const } : {}),
    };
    printRecords(reader.query(query), opts.json, io);
    return EXIT_OK;
  });
}

export function addQuery(group: Command): void {
  withFilters(subcommand(group, 'query', 'rows matching filters, newest first'))
    .option('--after-seq <seq>', 'only rows after this seq, oldest first', positiveInt)
    .option('--oldest', 'oldest first')
    .option('--limit <n>', 'at most this many rows (max 10000)', positiveInt, 100)
    .option('--json', 'one JSON object per line')
    .action(async (opts: QueryOptions) => done(await runAuditQuery(opts)));
}
