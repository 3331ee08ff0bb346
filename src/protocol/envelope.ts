import { z } from 'zod';
import { MAX_NESTING_DEPTH, readJsonText } from '../text/index.js';
import { WIRE_ERROR_CODES } from './errors.js';
import { CallableNameSchema } from './names.js';

/** Largest encoded dispatch request or reply a CAESAR peer accepts (bytes). */
export const MAX_ENVELOPE_BYTES = 1024 * 1024;
/**
 * Deepest nesting of objects and arrays in a dispatch request or reply, the envelope itself
 * counting as level 1; checked on the text before `JSON.parse`. An HTTP body within its own
 * bound (the same number) always fits: `{input}` and the envelope nest `input` alike.
 */
export const MAX_ENVELOPE_DEPTH = MAX_NESTING_DEPTH;

const wireDecoder = new TextDecoder();

/**
 * A message a peer sent (an announcement, an INFO, a PING, a preflight answer), read with
 * the one JSON ladder within the envelope's depth: the parsed value, or `undefined` with
 * the reason in words (`not JSON`, `nested deeper than 64 levels`, `a \`__proto__\` key`).
 */
export function readWireJson(data: Uint8Array | string): { value: unknown } | { why: string } {
  const read = readJsonText(
    typeof data === 'string' ? data : wireDecoder.decode(data),
    MAX_ENVELOPE_DEPTH,
  );
  if (read.ok) return { value: read.value };
  if (read.why === 'syntax') return { why: 'not JSON' };
  if (read.why === 'deep') return { why: `nested deeper than ${MAX_ENVELOPE_DEPTH} levels` };
  return { why: `a \`${read.key}\` key, which could reach an object's prototype` };
}

/** The brain's request to run one tool call: `caesar.dispatch.tool.<tool>`. */
export const DispatchRequestSchema = z.object({
  v: z.literal(1),
  tool: CallableNameSchema,
  input: z.unknown(),
  decision_id: z.string().min(1).max(128),
  /** Absolute deadline, epoch milliseconds. */
  deadline: z.number().int().positive(),
  /** The brain's signed dispatch grant (ADR 0052). */
  grant: z.string().max(8192).optional(),
  /**
   * 1 on the one re-dispatch of a call its worker never received (ADR 0099); absent on the
   * first. A worker that told the brain it never saw attempt 0 refuses attempt 0 ever after,
   * so a late copy of the first cannot run beside the second. Optional: v1 peers ignore it.
   */
  attempt: z.number().int().min(0).max(1).optional(),
  /**
   * The brain's X25519 public key, base64url (ADR 0105): a worker that has one of its own
   * MACs its answer with the key the two agree (`v2`) rather than signing it (`v1`).
   * Optional: a v1 peer ignores it and signs.
   */
  reply_dh: z.string().max(64).optional(),
  /**
   * The brain's NKEY signature over its `reply_dh`, base64url (ADR 0108): with it a worker
   * believes a v2 grant's MACs, keyed with that X25519 key, come from a brain it trusts.
   * Optional: sent beside v2 grants only.
   */
  reply_dh_sig: z.string().max(128).optional(),
});
export type DispatchRequest = z.infer<typeof DispatchRequestSchema>;

/** The highest `attempt` a dispatch carries: a call is re-dispatched once at most. */
export const MAX_DISPATCH_ATTEMPT = 1;

/**
 * The brain's question on `caesar.result.<tool>.<instance>` (ADR 0099): what became of the
 * call with this decision id (and attempt)? Answered with a `Caesar-Result` header; for
 * `done` the body is the reply the worker sent, signed and bound to the call as it was.
 */
export const ResultQuerySchema = z.object({
  v: z.literal(1),
  decision_id: z.string().min(1).max(128),
  attempt: z.number().int().min(0).max(MAX_DISPATCH_ATTEMPT).optional(),
  /** The call's deadline (epoch ms): a worker that never saw the call refuses it until then. */
  deadline: z.number().int().positive(),
});
export type ResultQuery = z.infer<typeof ResultQuerySchema>;

/** The states a result query is answered with (the `Caesar-Result` header). */
export const RESULT_STATES = ['done', 'running', 'unknown'] as const;
export type ResultState = (typeof RESULT_STATES)[number];

const WorkerRefSchema = z.object({
  id: z.string().min(1).max(64),
  host: z.string().min(1).max(255),
});
export type WorkerRef = z.infer<typeof WorkerRefSchema>;

export const ErrorBodySchema = z.object({
  code: z.enum(WIRE_ERROR_CODES),
  message: z.string().max(4096),
  retryable: z.boolean(),
  /** Machine-readable detail, such as `[{path, message}]` for `invalid_input`. */
  details: z.unknown().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/**
 * The worker's signature over the call's decision id, its grant's nonce, the worker id and
 * the outcome (ADR 0060): `v1.<signature base64url>`, or `v2.<HMAC-SHA256 base64url>` over
 * the same bytes when the call carried the brain's `reply_dh` (ADR 0105). Present on every
 * answer to a call that carried a grant; a brain that signs grants takes no reply without a
 * valid one.
 */
const ReplySignatureSchema = z.string().max(128).optional();

const DispatchSuccessSchema = z.object({
  v: z.literal(1),
  success: z.literal(true),
  result: z.unknown(),
  worker: WorkerRefSchema,
  duration_ms: z.number().nonnegative(),
  signature: ReplySignatureSchema,
});

const DispatchFailureSchema = z.object({
  v: z.literal(1),
  success: z.literal(false),
  error: ErrorBodySchema,
  /** Absent only when the brain synthesised the failure (no worker ever answered). */
  worker: WorkerRefSchema.optional(),
  duration_ms: z.number().nonnegative(),
  signature: ReplySignatureSchema,
});

/** A worker's answer. Failures also set the ADR-32 error headers. */
export const DispatchReplySchema = z.discriminatedUnion('success', [
  DispatchSuccessSchema,
  DispatchFailureSchema,
]);
export type DispatchFailure = z.infer<typeof DispatchFailureSchema>;
export type DispatchReply = z.infer<typeof DispatchReplySchema>;
