/** Header names on the wire. Every header CAESAR reads or writes is named here. */
export const HEADERS = {
  /** The brain's decision id for the call (also in the envelope). */
  decisionId: 'Caesar-Decision-Id',
  /** W3C trace context. */
  traceparent: 'traceparent',
  /** ADR-32: set on error replies with the human-readable message. */
  serviceError: 'Nats-Service-Error',
  /** ADR-32: set on error replies with the numeric code (see ERROR_CATALOGUE status). */
  serviceErrorCode: 'Nats-Service-Error-Code',
  /**
   * On an answer to a result query (ADR 0099): `done` (the body is the call's reply, as sent),
   * `running`, or `unknown` (this instance never received the call, or no longer remembers).
   */
  resultState: 'Caesar-Result',
} as const;
