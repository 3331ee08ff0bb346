/**
 * Whether the client of a long-lived response (an event stream) reads what it is sent.
 *
 * A server cannot see a client read: it sees only its own socket push back once every buffer
 * between the two is full. On Linux loopback that is about 4 MB (measured: the brain's send
 * buffer grows to 4 MB and the client's receive buffer holds 128 KiB more), so a stream that
 * sends a heartbeat every 15 s and a few audit rows never pushes back, and a client that never
 * reads a byte looks exactly like one that reads everything. A cut that waits for push-back
 * alone never fires for such a client (ADR 0063). So the watch tells three things apart:
 *
 * - **proof of reading**: the response pushed back and then drained (the client took what
 *   was queued). Nothing else proves it.
 * - **stalled**: the response has been backed up, with no drain, for `stallMs`. Nothing more
 *   can reach the client: `onStalled` (the caller destroys the connection).
 * - **unproven**: no proof for `stallMs`. For a stream that can be resumed (the audit tail,
 *   with `after_seq`) that ends it: `onStalled` when it is backed up at that moment (nothing
 *   more would get through), else `onUnproven` (the caller ends it cleanly). So a client that
 *   never reads holds its slot for `stallMs` at most, and one that reads reconnects and goes
 *   on. A stream that cannot be resumed (a chat turn) passes no `onUnproven`: only the
 *   stalled rule applies, and its turn bounds it otherwise.
 *
 * A slow reader is not mistaken for one that stopped: what waits for it in the brain's own
 * buffers is a batch or two (the streams stop producing while backed up), so taking any of
 * its socket's backlog soon lets that drain. Checked every quarter of `stallMs`, so each
 * rule fires within 1.25 × `stallMs`.
 */

/** The side of a response the watch looks at (a ServerResponse). */
export interface WatchedResponse {
  /** True while a write was refused and the queue has not drained yet. */
  readonly writableNeedDrain: boolean;
  on(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

export interface ReadWatchOptions {
  /** A client that has not shown it reads for this long has stalled. */
  readonly stallMs: number;
  /** Backed up, with no drain, for `stallMs`. Called once; the watch stops. */
  readonly onStalled: () => void;
  /** Not backed up, but no proof of reading for `stallMs`. Called once; the watch stops. */
  readonly onUnproven?: () => void;
  /** @default Date.now */
  readonly now?: () => number;
}

export class ReadWatch {
  readonly #res: WatchedResponse;
  readonly #o: ReadWatchOptions;
  readonly #now: () => number;
  readonly #timer: NodeJS.Timeout;
  readonly #onDrain = () => this.#proven();
  /** When the client last showed it reads (or the stream opened). */
  #provenAt: number;
  /** When a check first found the response backed up, since the last proof. */
  #backedUpSince: number | undefined;
  #stopped = false;

  constructor(res: WatchedResponse, options: ReadWatchOptions) {
    this.#res = res;
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#provenAt = this.#now();
    res.on('drain', this.#onDrain);
    const every = Math.max(1, Math.floor(options.stallMs / 4));
    this.#timer = setInterval(() => this.#check(), every).unref();
  }

  /** Stops watching (the stream ended). Idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#res.off('drain', this.#onDrain);
  }

  #proven(): void {
    this.#provenAt = this.#now();
    this.#backedUpSince = undefined;
  }

  #check(): void {
    const now = this.#now();
    const backedUp = this.#res.writableNeedDrain;
    if (backedUp) this.#backedUpSince ??= now;
    else this.#backedUpSince = undefined;
    const { stallMs, onStalled, onUnproven } = this.#o;
    if (backedUp && now - (this.#backedUpSince ?? now) >= stallMs) this.#fire(onStalled);
    else if (onUnproven !== undefined && now - this.#provenAt >= stallMs) {
      this.#fire(backedUp ? onStalled : onUnproven);
    }
  }

  #fire(callback: () => void): void {
    this.stop();
    callback();
  }
}
