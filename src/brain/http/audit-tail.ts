import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { recordToJsonLine } from '../../audit/index.js';
import type { BrainService } from '../api/index.js';
import { HttpApiError } from './errors.js';

/**
 * The live tail of the audit log (`GET /v1/events`, docs/api.md, ADR 0057): every row the
 * brain commits, as one server-sent event `audit` whose data is the row in the export shape
 * of `GET /v1/audit` and whose `id` is its seq. The rows are read back from the log (what is
 * shown is what was stored: clamped and redacted), never kept in memory per client: a stream
 * remembers only the last seq it sent. A client that reads slowly holds the stream's socket
 * buffer and one batch at most; one that stops reading for `stallMs` is disconnected; at most
 * `maxStreams` streams are open at once.
 */

/** Rows read from the log per step; the next step waits until these are on their way. */
const BATCH = 100;
/** The comment line a quiet stream sends so proxies and idle timers see traffic. */
const HEARTBEAT = ': ping\n\n';

export interface AuditTailOptions {
  /** Streams open at once; one more is answered 429. @default 8 */
  readonly maxStreams: number;
  /** Interval of heartbeat comments. */
  readonly heartbeatMs: number;
  /** A client whose buffer has not drained for this long is disconnected. @default 60000 */
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
  #stallTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly service: BrainService,
    afterSeq: number,
    private readonly stallMs: number,
    /** Cuts the client off (its socket, not only this body: the response must end). */
    private readonly cutOff: (err?: Error) => void,
  ) {
    this.#last = afterSeq;
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

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    clearTimeout(this.#stallTimer);
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
    if (this.#open && this.body.writableNeedDrain) this.#awaitDrain();
  }

  /** Waits for the client to take the buffer; a client that does not is cut off. */
  #awaitDrain(): void {
    if (this.#stallTimer !== undefined) return;
    this.#stallTimer = setTimeout(() => this.cutOff(), this.stallMs).unref();
    this.body.once('drain', () => {
      clearTimeout(this.#stallTimer);
      this.#stallTimer = undefined;
      this.#pump();
    });
  }
}

/** The `GET /v1/events` handler's state: how many streams are open, and their limit. */
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
   * Serves the tail from the row after `afterSeq` (default: the newest row now, so only new
   * rows are sent). Throws HttpApiError 429 when `maxStreams` are open already.
   */
  serve(req: FastifyRequest, reply: FastifyReply, afterSeq: number | undefined): PassThrough {
    if (this.#open.size >= this.options.maxStreams) {
      throw new HttpApiError(
        'too_many_requests',
        `at most ${this.options.maxStreams} event streams may be open at once; ` +
          'close another dashboard tab or `GET /v1/events` client and retry',
      );
    }
    const from = afterSeq ?? headSeq(this.service);
    const stream = new TailStream(this.service, from, this.options.stallMs, (err) => {
      if (err === undefined) req.log.info('event stream closed: the client stopped reading');
      else req.log.warn({ err }, 'event stream closed: the audit log could not be read');
      reply.raw.destroy();
    });
    const unsubscribe = this.service.onAuditAppended(() => stream.poke());
    const heartbeat = setInterval(() => stream.heartbeat(), this.options.heartbeatMs).unref();
    const end = () => {
      if (!this.#open.delete(end)) return;
      unsubscribe();
      clearInterval(heartbeat);
      stream.close();
    };
    this.#open.add(end);
    reply.raw.once('close', end);
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
