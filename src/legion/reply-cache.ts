import type { MsgHdrs } from '@nats-io/nats-core';
import type { ResultState } from '../protocol/index.js';

/**
 * What a worker remembers of each call it received, so that the brain can ask what became of
 * a call whose reply the bus lost (issue 34, ADR 0099), and so that the worker can send a
 * reply again once it is back on the bus.
 *
 * Bounded three ways: by count, by the bytes of the replies kept, and by time (an entry lives
 * until its call's deadline plus `keepMs`, past which the brain has stopped waiting). When a
 * bound is reached the oldest entries go first. An entry is one of:
 * - `running`: the call was received and has not been answered yet;
 * - `done`: answered; the reply as sent (signed, bound to the call) and where it went;
 * - `fenced`: the brain asked about a call this worker had not received, and was told
 *   `unknown`. If that call still arrives (a copy late on a route), it is refused, not run:
 *   the brain has already decided what to do without it.
 */

/** One reply as it was sent, for the answer to a result query and the re-send. */
export interface SentReply {
  readonly payload: Uint8Array;
  readonly headers?: MsgHdrs;
  /** The reply subject of the call (the brain's inbox). */
  readonly to: string;
  /** When it was sent (epoch ms). */
  readonly sentAt: number;
}

type Entry =
  | { state: 'running'; attempt: number; until: number }
  | { state: 'done'; attempt: number; until: number; reply: SentReply }
  | { state: 'fenced'; attempt: number; until: number };

export interface ReplyCacheOptions {
  /** Most calls remembered at once. @default 4096 */
  maxEntries?: number;
  /** Most bytes of replies kept at once (each entry also counts {@link ENTRY_OVERHEAD}). @default 16 MiB */
  maxBytes?: number;
  /** How long past its call's deadline an entry is kept. @default 1000 */
  keepMs?: number;
  /** The wall clock (epoch ms); tests pass their own. @default Date.now */
  now?: () => number;
}

/** Bytes an entry is counted for besides its reply: the key, the record, the map's slot. */
export const ENTRY_OVERHEAD = 256;

/** What a result query learns. */
export type Lookup =
  | { readonly state: 'done'; readonly reply: SentReply }
  | { readonly state: Exclude<ResultState, 'done'> };

export class ReplyCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #keepMs: number;
  readonly #now: () => number;
  #bytes = 0;

  constructor(options: ReplyCacheOptions = {}) {
    this.#maxEntries = Math.max(1, options.maxEntries ?? 4096);
    this.#maxBytes = Math.max(ENTRY_OVERHEAD, options.maxBytes ?? 16 * 1024 * 1024);
    this.#keepMs = Math.max(0, options.keepMs ?? 1000);
    this.#now = options.now ?? Date.now;
  }

  /** Entries held now (expired ones included until the next write sweeps them). */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes counted now. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * A call arrived: false when it must not run, because the brain was told this worker never
   * saw it (a fence for this attempt or a later one). Otherwise it is remembered as running.
   */
  admit(decisionId: string, attempt: number, deadline: number): boolean {
    const now = this.#now();
    const had = this.#live(decisionId, now);
    if (had?.state === 'fenced' && had.attempt >= attempt) return false;
    this.#put(decisionId, { state: 'running', attempt, until: deadline + this.#keepMs }, now);
    return true;
  }

  /**
   * The reply to a call was sent. Kept when the call is remembered as running and the reply
   * fits the byte bound on its own; dropped otherwise (the brain then hears `unknown`).
   */
  sent(decisionId: string, reply: SentReply): void {
    const now = this.#now();
    const had = this.#live(decisionId, now);
    if (had?.state !== 'running') return;
    if (reply.payload.length + ENTRY_OVERHEAD > this.#maxBytes) {
      this.#delete(decisionId);
      return;
    }
    // a small payload may be a view of a shared pool slab: kept as its own bytes, so the byte
    // bound is what the cache holds
    const payload = reply.payload;
    const own =
      payload.byteOffset === 0 && payload.byteLength === payload.buffer.byteLength
        ? reply
        : { ...reply, payload: new Uint8Array(payload) };
    this.#put(
      decisionId,
      { state: 'done', attempt: had.attempt, until: had.until, reply: own },
      now,
    );
  }

  /**
   * The brain asks what became of a call. A call this worker does not know is fenced until
   * `deadline` (plus `keepMs`), so that a late copy of it is refused: `unknown` is then true
   * for good, not only for now.
   */
  ask(decisionId: string, attempt: number, deadline: number): Lookup {
    const now = this.#now();
    const had = this.#live(decisionId, now);
    if (had !== undefined && had.state !== 'fenced' && had.attempt >= attempt) {
      return had.state === 'done' ? { state: 'done', reply: had.reply } : { state: 'running' };
    }
    const until = Math.max(had?.until ?? 0, deadline + this.#keepMs);
    this.#put(
      decisionId,
      { state: 'fenced', attempt: Math.max(attempt, had?.attempt ?? 0), until },
      now,
    );
    return { state: 'unknown' };
  }

  /** Replies sent at or after `since` whose calls the brain may still be waiting for. */
  sentSince(since: number): SentReply[] {
    const now = this.#now();
    const out: SentReply[] = [];
    for (const e of this.#entries.values()) {
      if (e.state === 'done' && e.reply.sentAt >= since && e.until > now) out.push(e.reply);
    }
    return out;
  }

  #live(decisionId: string, now: number): Entry | undefined {
    const e = this.#entries.get(decisionId);
    if (e === undefined || e.until > now) return e;
    this.#delete(decisionId);
    return undefined;
  }

  #put(decisionId: string, entry: Entry, now: number): void {
    this.#delete(decisionId);
    this.#entries.set(decisionId, entry);
    this.#bytes += sizeOf(entry);
    this.#trim(now);
  }

  /** Expired entries at the front go, then the oldest until every bound holds. */
  #trim(now: number): void {
    for (const [id, e] of this.#entries) {
      const over = this.#entries.size > this.#maxEntries || this.#bytes > this.#maxBytes;
      if (!over && e.until > now) break;
      this.#delete(id);
    }
  }

  #delete(decisionId: string): void {
    const e = this.#entries.get(decisionId);
    if (e === undefined) return;
    this.#entries.delete(decisionId);
    this.#bytes -= sizeOf(e);
  }
}

function sizeOf(e: Entry): number {
  return ENTRY_OVERHEAD + (e.state === 'done' ? e.reply.payload.length : 0);
}
