/**
 * What the store keeps. Roles are internal: the store has one typed append per role and
 * never takes a role from a caller, and there is no `system` role (the brain builds its
 * system prompt afresh for every request).
 */
export type TurnRole = 'user' | 'assistant' | 'tool';

/** One tool call as the agent loop saw it. Payloads are stored as JSON, capped. */
export interface ToolRecord {
  readonly name: string;
  readonly decision_id: string;
  /**
   * The model's id for the call (`call_…`, `toolu_…`), so the next round can answer it;
   * absent for calls a local intent rule made.
   */
  readonly call_id?: string;
  /** The call's outcome (`ok`, `denied`, `failed`, ...); the store does not interpret it. */
  readonly outcome: string;
  readonly input?: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
  /**
   * What the result is (ADR 0065): trusted or not, the operator's private data or not, and
   * where it came from. Kept whole whatever the payloads' cut; absent on records written
   * before labels existed.
   */
  readonly label?: ToolRecordLabel;
}

/** A tool record's provenance label, as stored. */
export interface ToolRecordLabel {
  readonly trust: 'trusted' | 'untrusted';
  readonly private: boolean;
  /** At most 8, each at most 200 characters. */
  readonly sources?: string[];
}

/** What `appendTool` takes: the record, and the turn's text if not the default summary. */
export interface ToolTurnInput extends ToolRecord {
  /** @default `<name>: <outcome>` */
  readonly content?: string;
}

export interface Turn {
  readonly role: TurnRole;
  readonly content: string;
  /** ISO-8601 UTC. */
  readonly at: string;
  /** Present on `tool` turns only. */
  readonly tool?: ToolRecord;
}

/**
 * A session as its owner names it: the id it sends (server-minted, or a name such as
 * `kitchen`) and the actor (API token name) it belongs to. Two actors may use the same id for
 * two separate sessions; every read and write names both, so one never reaches the other's.
 */
export interface SessionRef {
  readonly actor: string;
  readonly id: string;
}

export interface Session {
  readonly id: string;
  /** The API token name that created the session; only it may use the session. */
  readonly actor: string;
  /** ISO-8601 UTC. */
  readonly created_at: string;
  /** ISO-8601 UTC: the last append, or creation. */
  readonly updated_at: string;
  /** Oldest first; at most `historyLimit`. */
  readonly turns: readonly Turn[];
}

/** What one `prune()` deleted. */
export interface PruneResult {
  /** Sessions idle longer than `idleTtlMs`. */
  readonly expired: number;
  /** Least recently updated sessions past `maxSessions`. */
  readonly evicted: number;
}
