import type { ConfirmationTicket, PendingConfirmation } from '../api/index.js';
import type { PendingCall } from './confirmations.js';
import { excerptFor, readViews } from './provenance.js';
import { ruleAt } from './records.js';
import { principalOf } from '../api/index.js';

/**
 * A held call as a human is shown it (ADR 0068): who asked (a model in a turn opened by
 * token X, a local rule, the token itself), which flow rules held it and where they were
 * set, and what the model had read, each result with an excerpt chosen to show an injected
 * instruction. One account for the ticket the held call answers, `GET /v1/confirmations`,
 * `caesar confirm` and the dashboard.
 */

type HeldCallAccount = Pick<
  ConfirmationTicket,
  'asked_by' | 'gated_by' | 'read' | 'preflight_warnings' | 'approvers'
>;

/**
 * Who asked, the flow gates that held it, what the model had read, and the tool's preflight
 * warnings (the preflight asked, not the policy: ADR 0091).
 */
export function heldCallAccount(call: PendingCall): HeldCallAccount {
  const approvers = call.decision.approvers;
  return {
    asked_by: askedBy(call),
    gated_by: (call.decision.flow ?? []).filter((v) => v.action === 'confirm'),
    read: readOf(call),
    preflight_warnings: [...(call.preflightWarnings ?? [])],
    // the held call's rule's `approvers:` (ADR 0096); absent: any `confirm` token decides
    ...(approvers === undefined ? {} : { approvers }),
  };
}

/** One entry of `GET /v1/confirmations`. The input stays in the book: the summary names it. */
export function pendingView(call: PendingCall): PendingConfirmation {
  return {
    id: call.id,
    tool: call.tool,
    summary: call.summary,
    requested_by: call.caller.actor,
    principal: principalOf(call.caller).name,
    ...(call.caller.sessionId === undefined ? {} : { session_id: call.caller.sessionId }),
    decision_id: call.decisionId,
    rule: call.decision.rule.id,
    rule_at: ruleAt(call.decision),
    reason: call.decision.reason,
    ...heldCallAccount(call),
    created_at: new Date(call.createdAt).toISOString(),
    expires_at: new Date(call.expiresAt).toISOString(),
  };
}

/** Who asked for a held call, as a confirmation tells it. */
function askedBy(call: PendingCall): NonNullable<PendingConfirmation['asked_by']> {
  const { origin, caller } = call;
  const session = {
    principal: principalOf(caller).name,
    ...(caller.sessionId === undefined ? {} : { session_id: caller.sessionId }),
  };
  if (origin.kind === 'model') return { kind: 'model', actor: caller.actor, ...session };
  if (origin.kind === 'intent') {
    return { kind: 'intent', actor: caller.actor, intent: origin.intent, ...session };
  }
  return { kind: 'api', actor: caller.actor, ...session };
}

/** What the model had read before it asked, each with an excerpt (a model's call only). */
function readOf(call: PendingCall): NonNullable<PendingConfirmation['read']> {
  if (call.origin.kind !== 'model') return [];
  const { read } = call.origin;
  const shown = new Set(readViews(read).map((v) => v.decision_id));
  return read
    .filter((item) => shown.has(item.decisionId))
    .map((item) => ({
      tool: item.tool,
      decision_id: item.decisionId,
      trust: item.label.trust,
      private: item.label.private,
      sources: [...(item.label.sources ?? [])],
      excerpt: excerptFor(item, call),
    }));
}
