import { describeFirstIssue } from '../protocol/index.js';
import { AuditEventError } from './errors.js';
import {
  catalogueEntry,
  isAuditEventType,
  isAuditOutcome,
  type AuditEventInput,
  type AuditEventType,
  type AuditOutcome,
} from './events.js';
import type { ClampLimits } from './limits.js';
import { buildRow, type PreparedRow } from './row.js';

/**
 * Turns a caller's event into a row ready to chain: checks it against the catalogue, fills
 * the default outcome, clamps and redacts the payload. Runs in `append`, so a bad event is
 * rejected before it can join (and fail) a group commit.
 */

function checkType(type: string, allowInternal: boolean): AuditEventType {
  if (!isAuditEventType(type)) throw new AuditEventError(type, 'not in the audit event catalogue');
  if (!allowInternal && catalogueEntry(type).internal) {
    throw new AuditEventError(type, 'written only by the audit log itself');
  }
  return type;
}

function checkOutcome(type: AuditEventType, outcome: string | undefined): AuditOutcome {
  const allowed = catalogueEntry(type).outcomes;
  if (outcome === undefined) return allowed[0];
  if (!isAuditOutcome(outcome) || !allowed.includes(outcome)) {
    throw new AuditEventError(
      type,
      `outcome ${JSON.stringify(outcome)} is not one of ${allowed.join(', ')}`,
    );
  }
  return outcome;
}

function checkRequired(event: AuditEventInput, type: AuditEventType): void {
  if (typeof event.actor !== 'string' || event.actor.length === 0) {
    throw new AuditEventError(type, 'actor is required (who asked: token name, cli, trigger)');
  }
  if (catalogueEntry(type).toolCall && (!event.tool || !event.decisionId)) {
    throw new AuditEventError(type, 'tool and decisionId are required for tool call events');
  }
}

export function prepareRow(
  event: AuditEventInput,
  ts: string,
  limits: ClampLimits,
  allowInternal = false,
): PreparedRow {
  const type = checkType(String(event.type), allowInternal);
  checkRequired(event, type);
  const outcome = checkOutcome(type, event.outcome);
  const parsed = catalogueEntry(type).payload.safeParse(event.payload);
  if (!parsed.success) {
    const why = describeFirstIssue(parsed.error, 'payload');
    throw new AuditEventError(type, `payload ${why}`, parsed.error);
  }
  return buildRow(
    {
      ts,
      eventType: type,
      decisionId: event.decisionId,
      sessionId: event.sessionId,
      tool: event.tool,
      actor: event.actor,
      principal: event.principal ?? null,
      outcome,
      payload: event.payload,
    },
    limits,
  );
}
