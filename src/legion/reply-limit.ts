import { errorEntry, errorMessage } from '../errors/index.js';
import { MAX_ENVELOPE_BYTES, type ErrorBody } from '../protocol/index.js';

/**
 * How large a worker's reply may be. Two bounds: the `max_payload` of the NATS server the
 * worker is connected to now (from its INFO, again after a reconnect, perhaps to another
 * server), over which the client library refuses to publish at all, headers counted; and the
 * envelope the brain accepts (`MAX_ENVELOPE_BYTES`), over which it drops the reply as
 * `bad_reply`. A reply over either is answered `result_too_large` in its place, so the brain
 * hears at once instead of waiting out the call's deadline.
 */

/**
 * Room for the ADR-32 headers an error reply carries: a status and a message cut to 512
 * characters (up to 3 bytes each in UTF-8).
 */
export const ERROR_HEADER_BYTES = 2048;

/**
 * `result_too_large` for `tool` when a reply of `payloadBytes` (and `headerBytes` of headers)
 * does not fit; undefined when it does.
 */
export function replyTooLarge(
  tool: string,
  payloadBytes: number,
  headerBytes: number,
  maxPayload: number | undefined,
): ErrorBody | undefined {
  let limit: number;
  let limitedBy: string;
  if (maxPayload !== undefined && payloadBytes + headerBytes > maxPayload) {
    [limit, limitedBy] = [maxPayload, 'the NATS server (its max_payload)'];
  } else if (payloadBytes > MAX_ENVELOPE_BYTES) {
    [limit, limitedBy] = [MAX_ENVELOPE_BYTES, 'the brain (the reply envelope)'];
  } else {
    return undefined;
  }
  const params = { tool, bytes: payloadBytes + headerBytes, limit, limitedBy };
  return {
    code: 'result_too_large',
    message: errorMessage('result_too_large', params),
    retryable: errorEntry('result_too_large').retryable,
  };
}
