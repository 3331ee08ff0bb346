import { hash } from 'node:crypto';
// from its own file, not the text index (js-yaml, zod): the writer thread runs this module
import { canonicalJson, type JsonValue } from '../text/canonical-json.js';

/**
 * The hash chain over canonical rows. Canonical JSON (RFC 8785, JCS, for the values the log
 * stores) is the shared implementation in src/text; payloads reach it already JSON-safe
 * (see clamp.ts). `docs/audit.md` shows how to recompute a row's hash outside CAESAR.
 */

export { canonicalJson };
export type { JsonValue };

/** `prev_hash` of the first row ever written. */
export const GENESIS_HASH = '0'.repeat(64);

/** The hashed columns of one row. `payload` is the stored payload text (itself canonical). */
export interface ChainedRow {
  readonly seq: number;
  readonly ts: string;
  readonly eventType: string;
  readonly decisionId: string | null;
  readonly sessionId: string | null;
  readonly tool: string | null;
  readonly actor: string;
  /** Null on rows written before schema version 2, and on rows of no caller. */
  readonly principal?: string | null;
  readonly outcome: string;
  readonly payload: string;
}

/** Strings up to this length are scanned in JavaScript; longer ones go to JSON.stringify. */
const QUOTE_SCAN_MAX = 128;

/**
 * `JSON.stringify(s)` for a string, byte for byte. A short string with nothing to escape (no
 * `"`, `\\`, control character or surrogate) is only wrapped in quotes, which is much cheaper
 * than a call into the JSON serialiser; anything else is left to JSON.stringify.
 */
export function quoteJson(s: string): string {
  if (s.length > QUOTE_SCAN_MAX) return JSON.stringify(s);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) {
      return JSON.stringify(s);
    }
  }
  return '"' + s + '"';
}

const str = (v: string | null): string => (v === null ? 'null' : quoteJson(v));

/** A canonical row split around its `seq`, so the writer can build the parts before it knows it. */
export interface CanonicalParts {
  readonly head: string;
  readonly tail: string;
}

/** The canonical row is `head + seq + tail`. */
export function canonicalParts(row: Omit<ChainedRow, 'seq'>): CanonicalParts {
  return {
    head:
      `{"actor":${str(row.actor)},"decision_id":${str(row.decisionId)}` +
      `,"event_type":${str(row.eventType)},"outcome":${str(row.outcome)}` +
      `,"payload":${row.payload}` +
      // absent when null, so a row from before the column hashes as it always did
      (row.principal == null ? '' : `,"principal":${quoteJson(row.principal)}`) +
      `,"seq":`,
    tail: `,"session_id":${str(row.sessionId)},"tool":${str(row.tool)},"ts":${str(row.ts)}}`,
  };
}

/**
 * Canonical JSON of a row: the columns other than `prev_hash`/`hash`, keys sorted, with the
 * stored payload text embedded verbatim as the value of `payload`; `principal` only when it
 * is not null (schema version 2).
 */
export function canonicalRow(row: ChainedRow): string {
  const parts = canonicalParts(row);
  return parts.head + String(row.seq) + parts.tail;
}

/** `hash = sha256(prev_hash ‖ canonical row)`, lower-case hex over the UTF-8 bytes. */
export function chainHash(prevHash: string, canonical: string): string {
  return hash('sha256', prevHash + canonical, 'hex');
}
