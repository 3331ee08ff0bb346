import type { AnyAuditEventInput } from '../../audit/index.js';
import type { SpecChangedEvent } from '../registry/index.js';
import { BRAIN_ACTOR } from './policy-audit.js';

/** A registry `spec_changed` report as an audit row (docs/adr/0007-registry-trust.md). */
export function specChangedAuditEvent(event: SpecChangedEvent): AnyAuditEventInput {
  return {
    type: 'registry.spec_changed',
    actor: BRAIN_ACTOR,
    outcome: 'rejected',
    tool: event.tool,
    payload: { ...event },
  };
}
