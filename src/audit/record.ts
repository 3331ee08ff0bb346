import { MAX_WRAPPED_DEPTH, readJsonValue } from '../text/index.js';
import type { AuditEventType, AuditOutcome } from './events.js';

/** One stored row, as queries return it. `payload` is the parsed (clamped, redacted) JSON. */
export interface AuditRecord {
  readonly seq: number;
  /** ISO-8601 UTC with milliseconds, stamped by the log when `append` was called. */
  readonly ts: string;
  readonly type: AuditEventType;
  readonly decisionId: string | null;
  readonly sessionId: string | null;
  readonly tool: string | null;
  readonly actor: string;
  /** The principal the caller was judged as (ADR 0096); null on rows from before it. */
  readonly principal: string | null;
  readonly outcome: AuditOutcome;
  readonly payload: unknown;
  readonly prevHash: string;
  readonly hash: string;
}

/** The column list every reading query selects, in this order. */
export const RECORD_COLUMNS =
  'seq, ts, event_type, decision_id, session_id, tool, actor, outcome, payload, prev_hash, hash, ' +
  'principal';

/** A row as `.raw()` returns it for RECORD_COLUMNS. */
export type RawRow = [
  number,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string,
  string,
  string,
  string,
  string,
  string | null,
];

/** A row's payload, read with the one JSON ladder (a row wraps a bounded input or result). */
function parsePayload(text: string): unknown {
  const value = readJsonValue(text, MAX_WRAPPED_DEPTH);
  return value ?? { _unparseable: text.slice(0, 256) }; // only a tampered row gets here
}

export function recordFromRaw(r: RawRow): AuditRecord {
  return {
    seq: r[0],
    ts: r[1],
    type: r[2] as AuditEventType,
    decisionId: r[3],
    sessionId: r[4],
    tool: r[5],
    actor: r[6],
    principal: r[11],
    outcome: r[7] as AuditOutcome,
    payload: parsePayload(r[8]),
    prevHash: r[9],
    hash: r[10],
  };
}

/**
 * The export shape: the stored columns under their SQL names, payload parsed; `principal`
 * only when not null.
 */
export function recordToJsonLine(rec: AuditRecord): string {
  return JSON.stringify({
    seq: rec.seq,
    ts: rec.ts,
    event_type: rec.type,
    decision_id: rec.decisionId,
    session_id: rec.sessionId,
    tool: rec.tool,
    actor: rec.actor,
    // left out when null, as in the canonical row: a line re-serialised without prev_hash
    // and hash is the text its hash covers (docs/audit.md, "Canonical JSON and the hash chain")
    ...(rec.principal === null ? {} : { principal: rec.principal }),
    outcome: rec.outcome,
    payload: rec.payload,
    prev_hash: rec.prevHash,
    hash: rec.hash,
  });
}
