import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { recordToJsonLine } from '../../../audit/index.js';
import { toFilter, type FilterOptions } from './filters.js';
import { consoleIo, EXIT_OK, EXIT_USAGE, withReader, type AuditCliIo } from './log.js';

export interface ExportOptions extends FilterOptions {
  format?: string;
  out?: string;
}

/** `caesar audit export --format jsonl`: every matching row, oldest first, one JSON per line. */
export function runAuditExport(opts: ExportOptions, io: AuditCliIo = consoleIo): Promise<number> {
  if ((opts.format ?? 'jsonl') !== 'jsonl') {
    io.err(`caesar audit export: unsupported --format ${opts.format}; use jsonl`);
    return Promise.resolve(EXIT_USAGE);
  }
  return withReader(opts, io, async (reader) => {
    const records = reader.records(toFilter(opts));
    if (opts.out === undefined) {
      for (const r of records) io.out(recordToJsonLine(r));
      return EXIT_OK;
    }
    const file = createWriteStream(opts.out, { flags: 'wx' });
    await once(file, 'open');
    for (const r of records) {
      if (!file.write(`${recordToJsonLine(r)}\n`)) await once(file, 'drain');
    }
    file.end();
    await once(file, 'finish');
    return EXIT_OK;
  });
}
