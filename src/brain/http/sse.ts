import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorOf } from './auth.js';
import { logMapped, mapError, type MappedError } from './error-map.js';
import { ReadWatch } from './read-watch.js';
import type { StreamSlots } from './stream-slots.js';

/**
 * Server-sent events (the WHATWG `text/event-stream` format) for the routes that stream a
 * chat turn: `POST /v1/chat` with `Accept: text/event-stream` and `POST
 * /v1/chat/completions` with `stream: true`. One job: run a turn, write its frames as they
 * come, keep the connection alive, end the stream, and stop the turn when the client leaves
 * or stops reading. Each stream holds a slot (in all and per token) until it ends (ADR 0063).
 */

/** Interval of heartbeat comments on an open stream. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** A comment line: clients ignore it; proxies and idle timers see traffic. */
const SSE_HEARTBEAT = ': ping\n\n';

/** One named event: `event: <name>` and its JSON on one `data:` line. */
export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** One unnamed event (the OpenAI stream's form): a `data:` line of JSON. */
export function sseData(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** Whether an Accept header lists `text/event-stream` (with a q-value above 0). */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    if (type !== 'text/event-stream') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** How the chat streams of one server are bounded. */
export interface ChatStreamOptions {
  /** Interval of heartbeat comments on an open stream. */
  readonly heartbeatMs: number;
  /** A stream backed up this long (its client took nothing) is cut and its turn stopped. */
  readonly stallMs: number;
  /** Slots of streamed chat turns, in all and per token. */
  readonly slots: StreamSlots;
}

/** What a streamed route serves: the work, and how its end is written. */
export interface EventTurn<R> {
  /** Starts the work; `emit` writes frames as they come. `signal` aborts on client close. */
  run(emit: (frames: string) => void, signal: AbortSignal): Promise<R>;
  /** The frames that end a stream whose work succeeded. */
  done(result: R): string;
  /** The frames that end a stream whose work failed after the first byte. */
  failed(error: MappedError): string;
}

type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * A response body that becomes the response only at its first frame: until then the
 * route may still answer with a plain HTTP error.
 */
class LazyEventBody {
  readonly body = new PassThrough();
  readonly controller = new AbortController();
  /** Resolves at the first frame written (a turn's event or a heartbeat). */
  readonly committed: Promise<'committed'>;
  #commit: () => void = () => undefined;
  #open = true;
  readonly #heartbeat: NodeJS.Timeout;

  constructor(heartbeatMs: number) {
    this.committed = new Promise((resolve) => {
      this.#commit = () => resolve('committed');
    });
    this.#heartbeat = setInterval(() => this.write(SSE_HEARTBEAT), heartbeatMs).unref();
  }

  write(frames: string): void {
    if (!this.#open || frames === '') return;
    this.body.write(frames);
    this.#commit();
  }

  /** Writes the last frames and ends the body. */
  end(frames = ''): void {
    this.write(frames);
    this.#stop();
    this.body.end();
  }

  /** The client closed the connection (or was cut off) before the end: stop the turn. */
  clientGone(why = 'the client closed the connection'): void {
    if (!this.#open) return;
    this.#stop();
    this.controller.abort(new Error(why));
  }

  #stop(): void {
    this.#open = false;
    clearInterval(this.#heartbeat);
  }
}

/**
 * Serves `turn` as `text/event-stream` with status 200. The status and headers go out with
 * the first frame (a turn's event or a heartbeat, whichever comes first): a failure before
 * that is thrown, so the route answers it as a plain HTTP error (a bad session id is a 404,
 * not a 200 stream with an error event); a failure after it becomes `turn.failed`'s frames.
 * The client closing the connection, or leaving it backed up for `stallMs`, aborts the turn's
 * signal.
 * @throws HttpApiError 429 before the turn runs when the caller's token, or every token
 *   together, holds its streamed-turn slots already.
 */
export async function serveEventStream<R>(
  req: FastifyRequest,
  reply: FastifyReply,
  turn: EventTurn<R>,
  options: ChatStreamOptions,
): Promise<PassThrough> {
  const res = reply.raw;
  const release = options.slots.take(actorOf(req) ?? '');
  const lazy = new LazyEventBody(options.heartbeatMs);
  const watch = new ReadWatch(res, {
    stallMs: options.stallMs,
    onStalled: () => {
      req.log.info('chat stream closed: the client stopped reading; the turn stops');
      lazy.clientGone('the client stopped reading');
      res.destroy();
    },
  });
  res.once('close', () => {
    release();
    watch.stop();
    lazy.clientGone();
  });
  // A turn that throws instead of rejecting still settles `outcome` (and stops the timer).
  const outcome: Promise<Outcome<R>> = new Promise<R>((resolve) =>
    resolve(turn.run((frames) => lazy.write(frames), lazy.controller.signal)),
  ).then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
  const first = await Promise.race([lazy.committed, outcome]);
  if (first !== 'committed' && !first.ok && !lazy.controller.signal.aborted) {
    lazy.end();
    throw first.error;
  }
  void outcome.then((o) => lazy.end(endFrames(req, turn, o, lazy.controller.signal)));
  void reply.code(200).headers({
    'content-type': 'text/event-stream; charset=utf-8',
    // `no-store` as on every answer; `no-cache` as event-stream clients and proxies expect.
    'cache-control': 'no-cache, no-store',
    'x-accel-buffering': 'no',
  });
  return lazy.body;
}

function endFrames<R>(
  req: FastifyRequest,
  turn: EventTurn<R>,
  o: Outcome<R>,
  signal: AbortSignal,
): string {
  if (o.ok) return turn.done(o.value);
  if (signal.aborted) {
    req.log.debug('event stream: the client left; the turn was aborted');
    return '';
  }
  const mapped = mapError(o.error, 0);
  logMapped(req, o.error, mapped);
  return turn.failed(mapped);
}
