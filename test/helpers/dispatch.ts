import type { Msg, NatsConnection } from '@nats-io/nats-core';
import {
  DispatchReplySchema,
  dispatchSubject,
  type DispatchReply,
} from '../../src/protocol/index.js';
import type { GrantSigner } from '../../src/protocol/grant.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

export interface RawCallOptions {
  /** Deadline relative to now. @default 3000 */
  deadlineMs?: number;
  /** Envelope tool name, when a test wants it to differ from the subject's. */
  envelopeTool?: string;
  decisionId?: string;
  /** Signs a grant into the envelope, as the brain does (ADR 0052). */
  signer?: GrantSigner;
}

let calls = 0;

/**
 * Sends one v1 dispatch envelope with a plain NATS request, as any caller in any language
 * would, and parses the reply with the protocol schema. For tests of the worker side.
 */
export async function rawDispatch(
  nc: NatsConnection,
  tool: string,
  input: unknown,
  opts: RawCallOptions = {},
): Promise<{ reply: DispatchReply; msg: Msg; elapsedMs: number }> {
  const deadlineMs = opts.deadlineMs ?? 3000;
  const started = performance.now();
  const envelope = {
    v: 1,
    tool: opts.envelopeTool ?? tool,
    input,
    // a signed call needs its own decision id: the worker refuses one it already ran
    decision_id: opts.decisionId ?? (opts.signer ? `d-test-${process.pid}-${++calls}` : 'd-test'),
    deadline: Date.now() + deadlineMs,
  };
  if (opts.signer) {
    const { tool: name, decision_id: decisionId, deadline } = envelope;
    const claims = { tool: name, input, decisionId, deadline, policySha256: '0'.repeat(64) };
    Object.assign(envelope, { grant: opts.signer.sign(claims) });
  }
  const msg = await nc.request(dispatchSubject(tool), enc.encode(JSON.stringify(envelope)), {
    timeout: Math.max(deadlineMs, 0) + 5000,
  });
  const reply = DispatchReplySchema.parse(JSON.parse(dec.decode(msg.data)));
  return { reply, msg, elapsedMs: performance.now() - started };
}

/** The error of a failed reply; throws (failing the test) on a success. */
export function errorOf(reply: DispatchReply) {
  if (reply.success) throw new Error(`expected a failure, got ${JSON.stringify(reply)}`);
  return reply.error;
}
