import { canonicalParts, type CanonicalParts } from './canonical.js';
import { clampPayload } from './clamp.js';
import type { AuditEventType, AuditOutcome } from './event-names.js';
import type { ClampLimits } from './limits.js';

/**
 * A row's stored form, from fields already checked against the catalogue (`prepare.ts`) or
 * written by the audit log itself (`retention.ts`): column text made well-formed and capped,
 * the payload clamped and redacted, the canonical parts around `seq`. Imports no schema, so
 * the writer thread, which builds the retention row, loads no zod (ADR 0048).
 */

/** Longest value kept in the indexed text columns (`actor`, `tool`, ids). */
export const MAX_COLUMN_CHARS = 256;

/** A row with everything but `seq`, `prev_hash` and `hash`. */
export interface PreparedRow extends CanonicalParts {
  readonly ts: string;
  readonly eventType: AuditEventType;
  readonly decisionId: string | null;
  readonly sessionId: string | null;
  readonly tool: string | null;
  readonly actor: string;
  readonly principal: string | null;
  readonly outcome: AuditOutcome;
  readonly payload: string;
}

/** What {@link buildRow} takes: the row's fields as the event gave them. */
export interface RowFields {
  readonly ts: string;
  readonly eventType: AuditEventType;
  readonly decisionId?: string | null;
  readonly sessionId?: string | null;
  readonly tool?: string | null;
  readonly actor: string;
  /** The principal the caller was judged as (ADR 0096); none for rows of no caller. */
  readonly principal?: string | null;
  readonly outcome: AuditOutcome;
  readonly payload: unknown;
}

const SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Column text: well-formed UTF-16 (so SQLite returns what was hashed), capped in length. */
function column(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const s = String(value);
  const capped = s.length > MAX_COLUMN_CHARS ? s.slice(0, MAX_COLUMN_CHARS - 1) + '…' : s;
  return SURROGATE.test(capped) ? capped.replace(LONE_SURROGATE, '\uFFFD') : capped;
}

export function buildRow(fields: RowFields, limits: ClampLimits): PreparedRow {
  const row = {
    ts: fields.ts,
    eventType: fields.eventType,
    decisionId: column(fields.decisionId),
    sessionId: column(fields.sessionId),
    tool: column(fields.tool),
    actor: column(fields.actor) as string,
    principal: column(fields.principal),
    outcome: fields.outcome,
    payload: clampPayload(fields.payload, limits).json,
    head: '',
    tail: '',
  };
  const parts = canonicalParts(row);
  row.head = parts.head;
  row.tail = parts.tail;
  return row;
}
