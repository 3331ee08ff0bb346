import {
  NoRespondersError,
  RequestError,
  type Msg,
  type NatsConnection,
  type QueuedIterator,
} from '@nats-io/nats-core';
import { ReplyMux } from '../dispatch/reply-mux.js';

/** Nobody subscribes to the subject: NATS answers at once with a 503 status. */
function isNoResponders(err: unknown): boolean {
  return err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders());
}

/**
 * Ends a gathering before its window or stall: the registry's first sweep, once every tool
 * it expects has answered.
 */
export interface EnoughReplies {
  /** Told each reply as it arrives; true once the replies so far are what the gathering waits for. */
  readonly enough: (data: Uint8Array) => boolean;
  /** Replies are still taken this long after that: those sent together with the last one awaited. */
  readonly graceMs: number;
}

/**
 * Sends one request on a `$SRV` subject and gathers every reply that arrives within
 * `windowMs` (ADR-32 discovery is a scatter-gather: each instance answers once). No
 * responders means no services: an empty list, not an error. With `stallMs`, the gathering
 * also ends once `stallMs` pass without a reply after the last one (a first sweep that need
 * not wait out the whole window when every instance has answered); with `until`, `graceMs`
 * after its `enough` first says so, whichever comes first.
 */
export async function collectReplies(
  nc: NatsConnection,
  subject: string,
  windowMs: number,
  stallMs?: number,
  until?: EnoughReplies,
): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  let grace: ReturnType<typeof setTimeout> | undefined;
  try {
    // nats.js hands back its QueuedIterator, typed in core as an AsyncIterable
    const replies = (await nc.requestMany(
      subject,
      undefined,
      stallMs === undefined
        ? { strategy: 'timer', maxWait: windowMs }
        : { strategy: 'stall', maxWait: windowMs, stall: stallMs },
    )) as QueuedIterator<Msg>;
    for await (const msg of replies) {
      out.push(msg.data);
      // every reply is told, those of the grace too
      if (until?.enough(msg.data) === true && grace === undefined) {
        grace = setTimeout(() => replies.stop(), until.graceMs);
      }
    }
  } catch (err) {
    if (!isNoResponders(err)) throw err;
  } finally {
    clearTimeout(grace);
  }
  return out;
}

/** One reply mux per connection, for the questions asked of one instance. */
const muxes = new WeakMap<NatsConnection, ReplyMux>();
const EMPTY = new Uint8Array(0);

/**
 * One request to one instance's `$SRV` subject; undefined when it is gone or does not
 * answer in time. Other failures (closed connection) throw. Its reply subject ends in 128
 * random bits (the dispatcher's mux): what an instance's own subject says about it (its
 * spec, its reply key) cannot be answered in its place by a client that may publish into
 * the asker's inbox (ADR 0060). nats.js `request()` tokens come from Math.random.
 */
export async function requestOne(
  nc: NatsConnection,
  subject: string,
  timeoutMs: number,
): Promise<Uint8Array | undefined> {
  let mux = muxes.get(nc);
  if (mux === undefined) muxes.set(nc, (mux = new ReplyMux(nc)));
  const outcome = await mux.request(subject, EMPTY, timeoutMs);
  return outcome.kind === 'reply' ? outcome.msg.data : undefined;
}
