import type { ErrorBody, WorkerRef } from '../protocol/index.js';
import type { ReplySigner, SignedOutcome } from '../protocol/reply-signature.js';

/** How a call ended, worker side: the handler's result, or the error it is answered with. */
export type Outcome = { ok: true; result: unknown } | { ok: false; error: ErrorBody };

/** What an answer is signed for (ADR 0060): read off the envelope, once it parsed. */
export interface SignFor {
  decisionId?: string;
  /** The grant's nonce; undefined when the call carries no grant: the answer goes unsigned. */
  nonce?: string;
  /** The brain's X25519 key (`reply_dh`): the answer is MACed, not signed (ADR 0105). */
  brainDh?: string;
}

/**
 * The reply envelope of one call, signed by `signer` over the call's decision id and grant
 * nonce, this instance's id and the outcome, when the call carried a grant (ADR 0060); MACed
 * instead when the call carried the brain's X25519 key (ADR 0105).
 */
export function replyBody(
  worker: WorkerRef,
  outcome: Outcome,
  duration_ms: number,
  signer: ReplySigner | undefined,
  to: SignFor,
): Record<string, unknown> {
  const signed: SignedOutcome = outcome.ok
    ? { success: true, result: outcome.result }
    : { success: false, error: outcome.error };
  const body: Record<string, unknown> = { v: 1, ...signed, worker, duration_ms };
  const { decisionId, nonce } = to;
  if (signer !== undefined && decisionId !== undefined && nonce !== undefined) {
    const claims = { decisionId, nonce, instanceId: worker.id, outcome: signed };
    body.signature = signer.sign(claims, to.brainDh);
  }
  return body;
}
