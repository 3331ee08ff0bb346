import type { AnyAuditEventInput } from '../../audit/index.js';
import type { PolicyEvent } from '../../policy/index.js';

/** The actor of rows the brain writes on its own behalf (reloads, expiries). */
export const BRAIN_ACTOR = 'brain';

/** A policy store event as an audit row: `policy.reloaded` or `policy.reload_failed`. */
export function policyAuditEvent(event: PolicyEvent): AnyAuditEventInput {
  if (event.type === 'policy.reloaded') {
    return {
      type: 'policy.reloaded',
      actor: BRAIN_ACTOR,
      payload: {
        path: event.path,
        policy_sha256: event.policy_sha256,
        previous_sha256: event.previous_sha256,
        rules: event.rules,
        changed: event.changed,
        trigger: event.trigger,
        warnings: event.warnings.length,
      },
    };
  }
  return {
    type: 'policy.reload_failed',
    actor: BRAIN_ACTOR,
    payload: {
      path: event.path,
      error: event.error,
      code: event.code,
      kept_sha256: event.kept_sha256,
      trigger: event.trigger,
    },
  };
}
