/**
 * The names of the audit log's event types and outcomes, without their payload schemas:
 * what a reader needs to check a name (the CLI's `--type` and `--outcome` flags) without
 * loading zod (ADR 0047). The catalogue in `events.ts` is keyed by these names, and the
 * compiler holds the two to each other: a type named here and not there, or there and not
 * here, does not build.
 */

/** Every event type, in catalogue order. */
export const AUDIT_EVENT_TYPES = [
  'tool.called',
  'service.called',
  'tool.denied',
  'tool.input_rejected',
  'tool.result',
  'tool.failed',
  'tool.confirmation_requested',
  'tool.confirmed',
  'tool.rejected',
  'job.submitted',
  'job.started',
  'job.progress',
  'job.finished',
  'job.failed',
  'chat.completed',
  'llm.called',
  'policy.reloaded',
  'policy.reload_failed',
  'registry.spec_changed',
  'worker.restarted',
  'audit.retention',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** Every outcome a row can carry. */
export const AUDIT_OUTCOMES = [
  'allowed',
  'denied',
  'ok',
  'error',
  'pending',
  'confirmed',
  'rejected',
] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export function isAuditEventType(value: string): value is AuditEventType {
  return (AUDIT_EVENT_TYPES as readonly string[]).includes(value);
}

export function isAuditOutcome(value: string): value is AuditOutcome {
  return (AUDIT_OUTCOMES as readonly string[]).includes(value);
}
