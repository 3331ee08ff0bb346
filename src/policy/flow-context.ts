/**
 * What a model's turn had read before it asked for the call, and what the call does (ADR
 * 0065). The brain fills it from the turn's provenance labels and the tool's spec.
 */
export interface FlowContext {
  /** Something the model read in this turn's context is untrusted (a web page, an invite). */
  readonly afterUntrusted: boolean;
  /** Something the model read in this turn's context is the operator's private data. */
  readonly afterPrivate: boolean;
  /** `call_service`, or a tool whose spec says `readOnly: false` or `destructive: true`. */
  readonly changesState: boolean;
  /** A tool whose spec says `openWorld: true`. */
  readonly openWorld: boolean;
  /**
   * The call's input shares a word of 4 or more letters or digits with the private content
   * read (for `flow.private_match: shared_words`).
   */
  readonly sharesPrivateWords: boolean;
  /**
   * This turn's call counts by rule id, for `rate_limit: {calls, per: turn}`; the engine
   * counts an allowed call in it. Absent: per-turn limits do not apply (not a model's turn).
   */
  readonly turnCounts?: Map<string, number>;
}
