import {
  formatVerifyReport,
  parseChainHead,
  type ChainHead,
  type HeadCheck,
} from '../../../audit/index.js';
import { consoleIo, EXIT_FAILED, EXIT_OK, EXIT_USAGE, withReader, type AuditCliIo } from './log.js';
import type { DbOptions } from './flags.js';

export interface VerifyOptions extends DbOptions {
  json?: boolean;
  threads?: number;
  expectHead?: string;
}

/**
 * `caesar audit verify`: walks the chain; exit 1 and the first bad seq when tampered. With
 * `--expect-head SEQ:HASH` (a head recorded earlier) it also fails when that row is gone
 * (the log was truncated) or has another hash (the log was rebuilt).
 */
export function runAuditVerify(opts: VerifyOptions, io: AuditCliIo = consoleIo): Promise<number> {
  let expected: ChainHead | undefined;
  if (opts.expectHead !== undefined) {
    expected = parseChainHead(opts.expectHead);
    if (expected === undefined) {
      io.err(
        `caesar audit verify: --expect-head must be SEQ:HASH (a seq and 64 lower-case hex digits, as \`caesar audit verify\` prints them), got '${opts.expectHead}'`,
      );
      return Promise.resolve(EXIT_USAGE);
    }
  }
  return withReader(opts, io, async (reader) => {
    const report = await reader.verify(opts.threads === undefined ? {} : { threads: opts.threads });
    const head = expected && report.ok ? reader.checkHead(expected) : undefined;
    if (opts.json) {
      io.out(JSON.stringify(head ? { ...report, expected_head: head } : report));
    } else {
      io.out(formatVerifyReport(report));
      if (head) io.out(formatHeadCheck(head));
    }
    return report.ok && (head?.ok ?? true) ? EXIT_OK : EXIT_FAILED;
  });
}

function formatHeadCheck(head: HeadCheck): string {
  if (head.ok) return `ok: row ${head.seq} still has the recorded hash`;
  return `${head.reason.toUpperCase()}: ${head.detail}`;
}
