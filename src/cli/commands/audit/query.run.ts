import type { AuditQuery } from '../../../audit/index.js';
import { toFilter, type FilterOptions } from './filters.js';
import { consoleIo, EXIT_OK, printRecords, withReader, type AuditCliIo } from './log.js';

export interface QueryOptions extends FilterOptions {
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
