import type { AnyAuditEventInput, AuditPayload } from '../../audit/index.js';
import { BRAIN_ACTOR } from './policy-audit.js';

/** A restart of a part of `caesar up`'s stack, as the supervisor reported it (ADR 0070). */
export type RestartReport = AuditPayload<'worker.restarted'>;

/**
 * A restart as an audit row: `worker.restarted`, outcome `error` (a child failed or was
 * killed), its `tool` column the tool's name when the part is a worker.
 */
export function restartAuditEvent(report: RestartReport): AnyAuditEventInput {
  return {
    type: 'worker.restarted',
    actor: BRAIN_ACTOR,
    outcome: 'error',
    tool: report.kind === 'worker' ? report.name : null,
    payload: report,
  };
}
