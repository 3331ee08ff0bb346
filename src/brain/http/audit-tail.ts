import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { recordToJsonLine } from '../../audit/index.js';
import type { BrainService } from '../api/index.js';
import { ReadWatch } from './read-watch.js';
import type { StreamSlots } from './stream-slots.js';

/**
 * The live tail of the audit log (`GET /v1/events`, docs/api.md, ADR 0057): every row the
 * brain commits, as one server-sent event `audit` whose data is the row in the export shape
 * of `GET /v1/audit` and whose `id` is its seq. The rows are read back from the log (what is
 * shown is what was stored: clamped and redacted), never kept in memory per client: a stream
 * remembers only the last seq it sent. A client that reads slowly holds the stream's socket
 * buffer and one batch at most. Streams take slots (in all and per token, ADR 0063); a
 * stream whose client has not shown for `stallMs` that it reads ends (cut off when its socket
 * is backed up, ended cleanly when it is not: the client resumes with `after_seq`).
 */

/** Rows read from the log per step; the next step waits until these are on their way. */
const BATCH = 100;
/** The comment line a quiet stream sends so proxies and idle timers see traffic. */
const HEARTBEAT = ': ping\n\n';

export interface AuditTailOptions {
  /** Slots of event streams, in all and per token. */
  readonly slots: StreamSlots;
  /** Interval of heartbeat comments. */
  readonly heartbeatMs: number;
  /** A client that has not shown it reads for this long loses its stream. @default 60000 */
  readonly stallMs: number;
}

/** One `audit` event: the row's seq as the event id, the row as JSON on one data line. */
function auditFrame(seq: number, json: string): string {
  return `id: ${seq}\nevent: audit\ndata: ${json}\n\n`;
}

/** The seq of the newest row, 0 on an empty log. */
function headSeq(service: BrainService): number {
  return service.auditQuery({ order: 'newest', limit: 1 })[0]?.seq ?? 0;
}

/** One open stream: sends what the log holds after `last`, whenever told there is more. */
class TailStream {
  readonly body = new PassThrough();
  #last: number;
  #more = true;
  #scheduled = false;
  #open = true;

  constructor(
    private readonly service: BrainService,
    afterSeq: number,
    /** Cuts the client off (its socket, not only this body: the response must end). */
    private readonly cutOff: (err: Error) => void,
  ) {
    this.#last = afterSeq;
  }

  /** The seq of the last row sent. */
  get last(): number {
    return this.#last;
  }

  /**
   * New rows were committed: send them soon (coalesced: a burst of appends is one read),
   * or once the client has taken what it was sent.
   */
  poke(): void {
    this.#more = true;
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#pump();
    });
  }

  heartbeat(): void {
    if (this.#open && !this.body.writableNeedDrain) this.body.write(HEARTBEAT);
  }

  /** Ends the body after `frames` (sent unless the client's buffer is full). */
  close(frames = ''): void {
    if (!this.#open) return;
    this.#open = false;
    if (frames !== '' && !this.body.writableNeedDrain) this.body.write(frames);
    this.body.end();
  }

  /** Sends rows until the log has no more or the client's buffer is full (one row past). */
  #pump(): void {
    try {
      while (this.#more && this.#open && !this.body.writableNeedDrain) {
        const rows = this.service.auditQuery({ afterSeq: this.#last, limit: BATCH });
        this.#more = rows.length === BATCH;
        for (const row of rows) {
          this.body.write(auditFrame(row.seq, recordToJsonLine(row)));
          this.#last = row.seq;
          if (this.body.writableNeedDrain) {
            this.#more = true;
            break;
          }
        }
      }
    } catch (err) {
      // the log cannot be read now (its files turned read-only): end; the client reconnects
      this.#open = false;
      this.cutOff(err as Error);
      return;
    }
    // the client has not taken what it was sent: go on when it has (the ReadWatch cuts a
    // client that never does)
    if (this.#open && this.body.writableNeedDrain) this.body.once('drain', () => this.#pump());
  }
}

/** The `GET /v1/events` handler's state: the open streams, and their slots. */
export class AuditTail {
  /** How to end each open stream. */
  readonly #open = new Set<() => void>();

  constructor(
    private readonly service: BrainService,
    private readonly options: AuditTailOptions,
  ) {}

  /**
   * Ends every open stream (the server is closing): their clients see the end and may
   * reconnect; the server's close does not wait for streams that never end by themselves.
   */
  closeAll(): void {
    for (const end of [...this.#open]) end();
  }

  /**
   * Serves the tail to `token` from the row after `afterSeq` (default: the newest row now,
   * so only new rows are sent).
   * @throws HttpApiError 429 when `token`, or every token together, holds its slots already.
   */
  serve(
    req: FastifyRequest,
    reply: FastifyReply,
    token: string,
    afterSeq: number | undefined,
  ): PassThrough {
    const release = this.options.slots.take(token);
    let from: number;
    try {
      from = afterSeq ?? headSeq(this.service);
    } catch (err) {
      release(); // the log cannot be read (503): the stream never opened
      throw err;
    }
    const res = reply.raw;
    const stream = new TailStream(this.service, from, (err) => {
      req.log.warn({ err }, 'event stream closed: the audit log could not be read');
      res.destroy();
    });
    const watch = new ReadWatch(res, {
      stallMs: this.options.stallMs,
      onStalled: () => {
        req.log.info({ token }, 'event stream closed: the client stopped reading');
        res.destroy();
      },
      // a quiet stream cannot tell a reader from a client that never reads: it ends, and a
      // reader resumes where it was (docs/api.md, "Streams and abandoned requests")
      onUnproven: () => {
        req.log.debug({ token, lastSeq: stream.last }, 'event stream ended: no sign of reading');
        stream.close(`: reconnect after_seq=${stream.last}\n\n`);
      },
    });
    const unsubscribe = this.service.onAuditAppended(() => stream.poke());
    const heartbeat = setInterval(() => stream.heartbeat(), this.options.heartbeatMs).unref();
    const end = () => {
      if (!this.#open.delete(end)) return;
      release();
      watch.stop();
      unsubscribe();
      clearInterval(heartbeat);
      stream.close();
    };
    this.#open.add(end);
    res.once('close', end);
    stream.body.once('close', end);
    req.log.debug({ afterSeq }, 'event stream opened');
    void reply.code(200).headers({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-store',
      'x-accel-buffering': 'no',
    });
    // the first frame commits the headers, and sends what a resuming client missed
    stream.body.write(HEARTBEAT);
    stream.poke();
    return stream.body;
  }
}
